// Mode 1: the computer guesses the person's secret; the person answers with two numbers, by keyboard
// ("1 2", Enter) or with the fields and buttons.

import { $, ApiError, api } from "./api.js";
import { codeElement, responseElement, responseNames, showCode } from "./codes.js";
import { clearError, showError } from "./errors.js";
import { depth, game, historyBody, isOptimal, renderRows, service } from "./game.js";
import { why } from "./why.js";

// Whether a key is one that moves from the first number to the second ("1 2", "1,2", "1.2", "1-2").
const SEPARATORS = new Set([" ", ",", ".", "-", "/"]);

export const computer = {
  turns: [], // {guess, bulls, cows}
  guess: null,
  busy: false,
  bad: false,
  done: false,

  async start() {
    await game.ready; // a game choice made just before (a custom size typed, then New game) first
    this.turns = [];
    this.done = false;
    this.bad = false;
    $("c-done").hidden = true;
    $("c-contradiction").hidden = true;
    if (!game.info && !(await game.load())) return; // superseded by a newer choice of game
    await this.next($("c-new"));
  },

  // The answer's fields, read and checked here (a number out of range never reaches the service; an
  // answer no code can get is refused by it, in its own words).
  readAnswer() {
    const p = game.info.positions;
    const read = (id) => {
      const text = $(id).value.trim();
      if (text === "") return 0;
      if (!/^\d+$/.test(text) || Number(text) > p) throw new RangeError(`${id === "c-bulls" ? "the first" : "the second"} number must be a whole number from 0 to ${p}`);
      return Number(text);
    };
    if (!$("c-bulls").value.trim() && !$("c-cows").value.trim()) {
      throw new RangeError(`type the answer first: two numbers, ${responseNames().hit.toLowerCase()} then ${responseNames().near.toLowerCase()} (“1 2”)`);
    }
    const bulls = read("c-bulls");
    const cows = read("c-cows");
    if (bulls + cows > p) throw new RangeError(`the two numbers add up to ${bulls + cows}, more than the ${p} positions`);
    return [bulls, cows];
  },

  submit() {
    let answer;
    try {
      answer = this.readAnswer();
    } catch (err) {
      showError(new ApiError({ title: "Invalid answer", detail: err.message }), $("c-bulls"));
      return;
    }
    clearError(); // the last refusal is not this answer's: the service's answer to this one comes next
    this.answer(...answer);
  },

  // Keyboard: a digit in the first field moves on to the second (games of fewer than ten positions), a
  // separator too; Backspace in an empty second field goes back.
  keys(e) {
    const first = e.target.id === "c-bulls";
    if (SEPARATORS.has(e.key)) {
      e.preventDefault();
      if (first) $("c-cows").focus();
    } else if (!first && e.key === "Backspace" && !$("c-cows").value) {
      e.preventDefault();
      $("c-bulls").focus();
    }
  },

  typed(e) {
    if (e.target.id === "c-bulls" && game.info && game.info.positions < 10 && /^\d$/.test(e.target.value)) {
      $("c-cows").focus();
      $("c-cows").select();
    }
  },

  // Ask for the next guess after the current history; a contradiction is shown with an undo, any
  // other failure next to `control`, the control that asked.
  async next(control) {
    this.busy = true;
    this.setInputs(false);
    why.close("c");
    try {
      const move = await api("POST", "/v1/next-move", {
        game: game.body(), history: historyBody(this.turns), ...depth.body("c"),
      });
      this.bad = false;
      $("c-contradiction").hidden = true;
      clearError();
      if (move.finished) {
        this.finish(move.secret, move.guesses);
        move.source = null; // nothing was chosen: the game is over
      } else {
        this.guess = move.guess;
        showCode($("c-guess"), move.guess);
        $("c-turn").textContent = String(this.turns.length + 1);
        $("c-play").hidden = false;
      }
      this.showCandidates(move.candidates, move.candidate_list);
      this.showSource(move);
    } catch (err) {
      if (err instanceof ApiError && err.slug === "inconsistent-history") {
        this.bad = true;
        clearError();
        // the service's words name the turn as typed ("no code is consistent with the history: turn 3 …")
        const why = String(err.problem.detail || "").replace(/^no code is consistent with the history:\s*/, "");
        $("c-contradiction-text").textContent = `These answers contradict each other: no secret gives them all`
          + `${why ? ` (${why})` : ""}. Undo the last answer and check it.`;
        $("c-contradiction").hidden = false;
        $("c-count").textContent = "0";
        $("c-source").textContent = "";
        $("c-candidates").replaceChildren();
        $("c-undo-now").focus();
      } else {
        // Any other failure: forget the answer just given, so that it can be given again.
        if (this.turns.length && !this.done) this.turns.pop();
        showError(err, /max_guesses/.test(err.message) ? $("c-max") : control);
      }
    } finally {
      this.busy = false;
      this.render();
      // keyboard play: the answer's first field after each guess, New game once it is over
      if (!this.bad && !this.done && this.guess !== null) $("c-bulls").focus();
      else if (this.done) $("c-new").focus();
    }
  },

  async answer(bulls, cows) {
    if (this.busy || this.bad || this.done || this.guess === null) return;
    this.turns.push({ guess: this.guess, bulls, cows });
    $("c-bulls").value = "";
    $("c-cows").value = "";
    this.render();
    await this.next($("c-answer"));
  },

  async undo() {
    if (this.busy || !this.turns.length) return;
    this.turns.pop();
    this.done = false;
    $("c-done").hidden = true;
    await this.next($("c-undo"));
  },

  finish(secret, guesses) {
    this.done = true;
    this.guess = null;
    $("c-play").hidden = true;
    const n = guesses || this.turns.length;
    $("c-done").replaceChildren("Solved: your secret is ", codeElement(secret), `, found in ${n} guess${n === 1 ? "" : "es"}.`);
    $("c-done").hidden = false;
  },

  // Where an optimal strategy's guess came from, in the service's few words (`sources` of GET /v1/games), with
  // the service's note when its guess is not the strategy's own (a heuristic standing in, a tree not proven
  // optimal); a note that already starts with those words (a best-known tree's) is shown alone.
  showSource(move) {
    const optimal = isOptimal($("c-strategy").value);
    const words = optimal && move.source ? service.sources[move.source] || move.source : "";
    const note = move.note || "";
    const said = words && note.startsWith(words) ? [note] : [words, note].filter(Boolean);
    $("c-source").textContent = said.length ? `(${said.join(": ")})` : "";
  },

  showCandidates(count, list) {
    $("c-count").textContent = String(count);
    const ul = $("c-candidates");
    ul.replaceChildren();
    for (const code of list || []) {
      const li = document.createElement("li");
      li.append(codeElement(code));
      ul.append(li);
    }
  },

  setInputs(enabled) {
    for (const id of ["c-bulls", "c-cows", "c-submit", "c-solved"]) $(id).disabled = !enabled;
  },

  render() {
    renderRows($("c-history"), this.turns.map((t, i) => [i + 1, codeElement(t.guess), responseElement(t.bulls, t.cows)]),
      this.bad);
    $("c-undo").disabled = this.busy || !this.turns.length;
    this.setInputs(!this.busy && !this.bad && !this.done);
  },

  wire() {
    $("c-new").addEventListener("click", () => this.start().catch((err) => showError(err, $("c-new"))));
    $("c-undo").addEventListener("click", () => this.undo());
    $("c-undo-now").addEventListener("click", () => this.undo());
    $("c-answer").addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    $("c-solved").addEventListener("click", () => this.answer(game.info.positions, 0));
    for (const id of ["c-bulls", "c-cows"]) {
      $(id).addEventListener("keydown", (e) => this.keys(e));
      $(id).addEventListener("input", (e) => this.typed(e));
    }
    $("c-why").addEventListener("click", () => why.toggle("c", historyBody(this.turns), this.guess));
    // the answer typed while the explanation has the focus goes to the answer's first field, as it would after
    // the guess (a digit there starts the answer; Enter and Space still open and close the explanation)
    $("c-why").addEventListener("keydown", (e) => {
      if (/^\d$/.test(e.key) && !$("c-bulls").disabled && !$("c-play").hidden) $("c-bulls").focus();
    });
    // Ctrl+Z (⌘Z) undoes the last answer wherever the focus is in this mode (after a win or a contradiction
    // too), except inside a field with text in it, where it undoes typing as usual
    $("panel-computer").addEventListener("keydown", (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "z") return;
      if (e.target.matches("input, select") && e.target.value && !e.target.matches("#c-bulls, #c-cows")) return;
      if (e.target.matches("#c-bulls, #c-cows") && ($("c-bulls").value || $("c-cows").value)) return;
      e.preventDefault();
      this.undo();
    });
  },
};
