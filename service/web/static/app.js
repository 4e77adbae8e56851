// The web page: wiring the game's controls, the four modes and their tabs.  Each part is an ES module
// of its own, loaded by the browser as it is (no build step): api.js (the public API), errors.js
// (errors next to their control), game.js (the game chosen at the top, the strategies of
// GET /v1/games), computer.js, person.js, explorer.js and atlas.js (the modes).  The page talks only to the
// public /v1 API, the same calls a bot would make; every failure of a call is shown with the
// problem's `detail`, and the page stays usable.

import { $ } from "./api.js";
import { clearError, gameControl, guarded } from "./errors.js";
import { fillStrategies, game } from "./game.js";
import { computer } from "./computer.js";
import { person } from "./person.js";
import { explorer } from "./explorer.js";
import { atlas } from "./atlas.js";

function selectTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
}

async function gameChanged() {
  $("custom").hidden = $("preset").value !== "custom";
  for (const id of ["c-play", "c-done", "c-contradiction", "p-form", "p-done", "p-hint-text", "x-results"]) {
    $(id).hidden = true;
  }
  $("c-candidates").replaceChildren();
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
  $("p-count").textContent = "—";
  const ok = await guarded(() => game.load(), gameControl());
  if (ok) clearError();
}

// A game of the atlas opened from its row: chosen at the top, shown in the explorer with its optimal
// strategy (or, while unsolved, the best one known).
async function openGame(spec) {
  $("preset").value = spec;
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

  $("c-new").addEventListener("click", () => guarded(() => computer.start(), $("c-new")));
  $("c-undo").addEventListener("click", () => computer.undo());
  $("c-undo-now").addEventListener("click", () => computer.undo());

  $("p-new").addEventListener("click", () => person.start());
  $("p-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("p-input").value.trim();
    if (text) person.guess(text);
  });
  $("p-hint").addEventListener("click", () => person.showHint());
  $("p-giveup").addEventListener("click", () => person.giveUp());

  $("x-form").addEventListener("submit", (e) => {
    e.preventDefault();
    explorer.show();
  });

  guarded(() => game.load(), gameControl());
  document.body.dataset.ready = "true";
}

init();
