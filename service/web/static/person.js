// Mode 2: the person guesses the computer's secret (held encrypted in a match token).  A guess is
// typed (Enter sends it); in a Mastermind game the colours can also be picked from a palette.

import { $, ApiError, api } from "./api.js";
import { COLOURS, codeElement, pegs, responseElement } from "./codes.js";
import { clearError, guarded, showError } from "./errors.js";
import { depth, game, historyBody, renderRows } from "./game.js";
import { why } from "./why.js";

export const person = {
  token: null,
  turns: [], // {guess, bulls, cows, left}
  hint: null,
  done: false,
  queue: Promise.resolve(),

  async start() {
    await game.ready; // a game choice made just before (a custom size typed, then New secret) first
    this.token = null;
    this.turns = [];
    this.hint = null;
    this.done = false;
    $("p-done").hidden = true;
    $("p-hint-box").hidden = true;
    why.close("p");
    this.render();
    const match = await guarded(() => api("POST", "/v1/matches", { game: game.body() }), $("p-new"));
    if (!match) return;
    clearError();
    this.token = match.token;
    $("p-count").textContent = String(match.game.codes);
    $("p-input").value = "";
    $("p-input").placeholder = `${match.game.positions} of ${match.game.alphabet}`;
    this.palette();
    this.preview();
    $("p-form").hidden = false;
    $("p-input").focus();
  },

  // Colour buttons for a Mastermind game: each adds its symbol to the guess being typed.
  palette() {
    const box = $("p-palette");
    box.querySelectorAll("button").forEach((b) => b.remove());
    box.hidden = !pegs();
    if (!pegs()) return;
    [...game.info.alphabet].forEach((symbol, i) => {
      const [name, bg, fg] = COLOURS[i];
      const b = Object.assign(document.createElement("button"), { type: "button", className: "peg-button", textContent: symbol });
      b.style.background = bg;
      b.style.color = fg;
      b.setAttribute("aria-label", `Add ${name} (${symbol})`);
      b.title = name;
      b.addEventListener("click", () => {
        const input = $("p-input");
        if (input.value.length < game.info.positions) input.value += symbol;
        this.preview();
        input.focus();
      });
      box.append(b);
    });
  },

  // The guess being typed, as pegs (Mastermind only; a screen reader reads the field itself).
  preview() {
    const text = $("p-input").value.trim();
    const ok = pegs() && text && [...text].every((s) => game.info.alphabet.includes(s));
    $("p-preview").replaceChildren(ok ? codeElement(text) : "");
  },

  async guess(text) {
    if (!this.token || this.done) return;
    // a guess already made tells nothing new: said so, not counted (the service would score it again)
    const again = this.turns.findIndex((t) => t.guess === text);
    if (again >= 0) {
      showError(new ApiError({ title: "Already tried", detail: `${text} was your guess ${again + 1}: its answer is in the table below` }),
        $("p-input"));
      return;
    }
    const scored = await guarded(() => api("POST", "/v1/matches/guess", { token: this.token, guess: text }),
      $("p-input"));
    if (!scored) return;
    clearError();
    const turn = { guess: scored.guess, bulls: scored.bulls, cows: scored.cows, left: "…" };
    this.turns.push(turn);
    this.hint = null;
    $("p-hint-box").hidden = true;
    why.close("p");
    if ($("p-input").value.trim() === text) $("p-input").value = ""; // not the next guess, if one is being typed
    this.preview();
    if (scored.solved) {
      turn.left = 1;
      $("p-count").textContent = "1";
      const n = this.turns.length;
      this.finish(["You found it: the secret is ", codeElement(scored.secret), `, in ${n} guess${n === 1 ? "" : "es"}.`], "success");
      return;
    }
    this.render();
    const move = await this.move();
    if (move) {
      turn.left = move.candidates;
      $("p-count").textContent = String(move.candidates);
    }
    this.render();
  },

  // The solver's next move after the person's turns (its candidate count, and the hint).
  async move() {
    const move = await guarded(() => api("POST", "/v1/next-move", {
      game: game.body(), history: historyBody(this.turns), ...depth.body("p"),
    }), (err) => (/max_guesses/.test(err.message) ? $("p-max") : $("p-strategy")));
    if (move) this.hint = move;
    return move;
  },

  async showHint() {
    if (!this.token || this.done) return;
    const move = this.hint || (await this.move());
    if (!move) return;
    const n = move.candidates;
    $("p-hint-text").replaceChildren("Hint: try ", codeElement(move.guess), ` (${n} candidate${n === 1 ? "" : "s"} left).`);
    $("p-hint-text").dataset.guess = move.guess;
    $("p-hint-box").hidden = false;
  },

  async giveUp() {
    if (!this.token || this.done) return;
    const shown = await guarded(() => api("POST", "/v1/matches/reveal", { token: this.token }), $("p-giveup"));
    if (!shown) return;
    clearError();
    this.finish(["You gave up. The secret was ", codeElement(shown.secret), "."], "gave-up");
  },

  finish(content, kind) {
    this.done = true;
    $("p-form").hidden = true;
    $("p-palette").hidden = true;
    $("p-hint-box").hidden = true;
    why.close("p");
    $("p-done").replaceChildren(...content);
    $("p-done").className = kind;
    $("p-done").hidden = false;
    this.render();
    $("p-new").focus();
  },

  render() {
    renderRows($("p-history"), this.turns.map((t, i) => [i + 1, codeElement(t.guess), responseElement(t.bulls, t.cows), t.left]),
      false);
  },

  wire() {
    $("p-new").addEventListener("click", () => this.start());
    $("p-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("p-input").value.trim();
      // one guess at a time, in the order typed: a second Enter while the first is scored waits its turn
      if (text) this.queue = this.queue.then(() => this.guess(text)).catch((err) => showError(err, $("p-input")));
    });
    $("p-input").addEventListener("input", () => this.preview());
    $("p-hint").addEventListener("click", () => this.showHint());
    $("p-giveup").addEventListener("click", () => this.giveUp());
    $("p-why").addEventListener("click", () => why.toggle("p", historyBody(this.turns), this.hint && this.hint.guess));
  },
};
