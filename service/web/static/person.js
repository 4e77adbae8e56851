// Mode 2: the person guesses the computer's secret (held encrypted in a match token).

import { $, api } from "./api.js";
import { clearError, guarded } from "./errors.js";
import { game, historyBody, renderRows } from "./game.js";

export const person = {
  token: null,
  turns: [], // {guess, bulls, cows, left}
  hint: null,
  done: false,

  async start() {
    this.token = null;
    this.turns = [];
    this.hint = null;
    this.done = false;
    $("p-done").hidden = true;
    $("p-hint-text").hidden = true;
    this.render();
    const match = await guarded(() => api("POST", "/v1/matches", { game: game.body() }), $("p-new"));
    if (!match) return;
    clearError();
    this.token = match.token;
    game.info = match.game;
    $("p-count").textContent = String(match.game.codes);
    $("p-input").maxLength = match.game.positions;
    $("p-input").placeholder = `${match.game.positions} of ${match.game.alphabet}`;
    $("p-form").hidden = false;
    $("p-input").focus();
  },

  async guess(text) {
    if (!this.token || this.done) return;
    const scored = await guarded(() => api("POST", "/v1/matches/guess", { token: this.token, guess: text }),
      $("p-input"));
    if (!scored) return;
    clearError();
    const turn = { guess: scored.guess, bulls: scored.bulls, cows: scored.cows, left: "…" };
    this.turns.push(turn);
    this.hint = null;
    $("p-hint-text").hidden = true;
    $("p-input").value = "";
    if (scored.solved) {
      turn.left = 1;
      $("p-count").textContent = "1";
      this.finish(`You found it: the secret is ${scored.secret}, in ${this.turns.length} guess${this.turns.length === 1 ? "" : "es"}.`);
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
      game: game.body(), history: historyBody(this.turns), strategy: $("p-strategy").value,
    }), $("p-strategy"));
    if (move) this.hint = move;
    return move;
  },

  async showHint() {
    if (!this.token || this.done) return;
    const move = this.hint || (await this.move());
    if (!move) return;
    $("p-hint-text").textContent = `Hint: try ${move.guess} (${move.candidates} candidate${move.candidates === 1 ? "" : "s"} left).`;
    $("p-hint-text").hidden = false;
  },

  async giveUp() {
    if (!this.token || this.done) return;
    const shown = await guarded(() => api("POST", "/v1/matches/reveal", { token: this.token }), $("p-giveup"));
    if (shown) this.finish(`The secret was ${shown.secret}.`);
  },

  finish(text) {
    this.done = true;
    $("p-form").hidden = true;
    $("p-done").textContent = text;
    $("p-done").hidden = false;
    this.render();
  },

  render() {
    renderRows($("p-history"), this.turns.map((t, i) => [i + 1, t.guess, t.bulls, t.cows, t.left]), false);
  },
};
