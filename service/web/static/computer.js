// Mode 1: the computer guesses the person's secret.

import { $, ApiError, api } from "./api.js";
import { clearError, showError } from "./errors.js";
import { game, historyBody, renderRows } from "./game.js";

export const computer = {
  turns: [], // {guess, bulls, cows}
  guess: null,
  busy: false,
  bad: false,
  done: false,

  async start() {
    this.turns = [];
    this.done = false;
    this.bad = false;
    $("c-done").hidden = true;
    $("c-contradiction").hidden = true;
    if (!game.info && !(await game.load())) return; // superseded by a newer choice of game
    this.renderButtons();
    await this.next($("c-new"));
  },

  renderButtons() {
    const box = $("c-responses");
    box.replaceChildren();
    const p = game.info.positions;
    for (const r of game.info.responses) {
      const [b, c] = r.split(".").map(Number);
      const btn = document.createElement("button");
      btn.type = "button";
      btn.dataset.response = r;
      btn.textContent = `${b} bull${b === 1 ? "" : "s"}, ${c} cow${c === 1 ? "" : "s"}`;
      if (b === p) btn.textContent = `${b} bulls: solved`;
      btn.addEventListener("click", () => this.answer(b, c));
      box.append(btn);
    }
  },

  // Ask for the next guess after the current history; a contradiction is shown with an undo, any
  // other failure next to `control`, the control that asked.
  async next(control) {
    this.busy = true;
    this.setButtons(false);
    try {
      const move = await api("POST", "/v1/next-move", {
        game: game.body(), history: historyBody(this.turns), strategy: $("c-strategy").value,
      });
      this.bad = false;
      $("c-contradiction").hidden = true;
      clearError();
      const last = this.turns[this.turns.length - 1];
      if (last && last.bulls === game.info.positions) {
        this.finish(last.guess);
      } else {
        this.guess = move.guess;
        $("c-guess").textContent = move.guess;
        $("c-turn").textContent = String(this.turns.length + 1);
        $("c-play").hidden = false;
      }
      this.showCandidates(move.candidates, move.candidate_list, move.source);
    } catch (err) {
      if (err instanceof ApiError && err.slug === "inconsistent-history") {
        this.bad = true;
        $("c-contradiction-text").textContent =
          `These answers contradict each other: no secret gives them all. ${err.problem.detail}. Undo the last answer and check it.`;
        $("c-contradiction").hidden = false;
        $("c-count").textContent = "0";
        $("c-candidates").replaceChildren();
        $("c-undo-now").focus();
      } else {
        // Any other failure: forget the answer just given, so that it can be given again.
        if (this.turns.length && !this.done) this.turns.pop();
        showError(err, control);
      }
    } finally {
      this.busy = false;
      this.render();
    }
  },

  async answer(bulls, cows) {
    if (this.busy || this.bad || this.done || this.guess === null) return;
    this.turns.push({ guess: this.guess, bulls, cows });
    this.render();
    await this.next($("c-responses"));
  },

  async undo() {
    if (this.busy || !this.turns.length) return;
    this.turns.pop();
    this.done = false;
    $("c-done").hidden = true;
    await this.next($("c-undo"));
  },

  finish(secret) {
    this.done = true;
    this.guess = null;
    $("c-play").hidden = true;
    const n = this.turns.length;
    $("c-done").textContent = `Solved: your secret is ${secret}, found in ${n} guess${n === 1 ? "" : "es"}.`;
    $("c-done").hidden = false;
  },

  showCandidates(count, list, source) {
    $("c-count").textContent = String(count);
    $("c-source").textContent = source ? `(move from: ${source})` : "";
    const ul = $("c-candidates");
    ul.replaceChildren();
    for (const code of list || []) {
      const li = document.createElement("li");
      li.textContent = code;
      ul.append(li);
    }
  },

  setButtons(enabled) {
    for (const b of $("c-responses").querySelectorAll("button")) b.disabled = !enabled;
  },

  render() {
    renderRows($("c-history"), this.turns.map((t, i) => [i + 1, t.guess, t.bulls, t.cows]), this.bad);
    $("c-undo").disabled = this.busy || !this.turns.length;
    this.setButtons(!this.busy && !this.bad && !this.done);
  },
};
