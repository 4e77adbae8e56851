// The web page: wiring the game's controls, the four modes and their tabs.  Each part is an ES module
// of its own, loaded by the browser as it is (no build step): api.js (the public API), errors.js
// (errors next to their control), codes.js (codes as pegs or digits, responses in words), game.js (the
// game chosen at the top, the strategies of GET /v1/games), why.js (why a guess is good), computer.js,
// person.js, explorer.js and atlas.js (the modes).  The page talks only to the public /v1 API, the same
// calls a bot would make; every failure of a call is shown with the problem's `detail`, and the page
// stays usable.

import { $ } from "./api.js";
import { responseNames } from "./codes.js";
import { clearError, gameControl, guarded } from "./errors.js";
import { depth, fillStrategies, game, menuValue } from "./game.js";
import { computer } from "./computer.js";
import { person } from "./person.js";
import { explorer } from "./explorer.js";
import { atlas } from "./atlas.js";
import { why } from "./why.js";

function selectTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
}

// The words of the chosen game: black and white pegs for Mastermind, bulls and cows otherwise.
function nameResponses() {
  const names = responseNames();
  const set = (cls, text) => document.querySelectorAll(cls).forEach((e) => { e.textContent = text; });
  set(".hit-name", names.hit);
  set(".near-name", names.near);
  set(".hit-help", `(${names.hitHelp})`);
  set(".near-help", `(${names.nearHelp})`);
  $("c-rules").textContent = `Think of a secret code. After each guess, say how many ${names.things} are right and in the right `
    + `place (${names.hit.toLowerCase()}) and how many are right but in the wrong place (${names.near.toLowerCase()}).`;
}

// A new game chosen: everything shown of the old one goes at once (before the new one is loaded, so
// that an action started meanwhile waits for the new one and is not undone by it).
function gameChanged() {
  $("custom").hidden = $("preset").value !== "custom";
  for (const id of ["c-play", "c-done", "c-contradiction", "p-form", "p-palette", "p-done", "p-hint-box", "x-results"]) {
    $(id).hidden = true;
  }
  why.close("c");
  why.close("p");
  $("c-candidates").replaceChildren();
  $("p-preview").replaceChildren();
  computer.turns = [];
  computer.done = false;
  computer.bad = false;
  computer.guess = null;
  computer.render();
  person.token = null;
  person.turns = [];
  person.render();
  explorer.reset();
  $("c-count").textContent = "—";
  $("c-source").textContent = "";
  $("p-count").textContent = "—";
  return loadGame();
}

async function loadGame() {
  const info = await guarded(() => game.load(), gameControl());
  if (!info) return;
  clearError();
  nameResponses();
  depth.reset();
}

// A game of the atlas opened from its row: chosen at the top, shown in the explorer with its optimal
// strategy (or, while unsolved, the best one known).
async function openGame(spec) {
  $("preset").value = menuValue(spec);
  await gameChanged();
  selectTab($("tab-explorer"));
  $("x-a").value = "optimal-total";
  $("tab-explorer").focus();
  await explorer.show();
}

async function init() {
  const ok = await guarded(() => fillStrategies(), gameControl());
  if (ok !== undefined) atlas.init(openGame);
  $("preset").addEventListener("change", gameChanged);
  for (const id of ["positions", "symbols", "repetition"]) $(id).addEventListener("change", gameChanged);

  const tabs = [...document.querySelectorAll('[role="tab"]')];
  tabs.forEach((t, i) => {
    t.addEventListener("click", () => selectTab(t));
    t.addEventListener("keydown", (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      const next = tabs[(i + step + tabs.length) % tabs.length];
      selectTab(next);
      next.focus();
    });
  });

  for (const prefix of ["c", "p"]) $(`${prefix}-strategy`).addEventListener("change", () => depth.sync(prefix));
  computer.wire();
  person.wire();
  $("x-form").addEventListener("submit", (e) => {
    e.preventDefault();
    explorer.show();
  });

  await loadGame();
  document.body.dataset.ready = "true";
}

init();
