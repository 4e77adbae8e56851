// The game chosen at the top, shared by the three modes, and the helpers they share.

import { $, api } from "./api.js";

// [name, label] of every strategy, in the service's order: read from GET /v1/games at start-up, so
// the page offers exactly what the service plays.
export const STRATEGIES = [];

// What GET /v1/games says besides the strategies: the atlas's games (with their five numbers) and the
// service's limits, read once at start-up.
export const service = { atlas: [], limits: {}, optimal: new Set() };

// An atlas number as the page writes it: the value, or its proven bounds as a bracket.
export function bracket(v) {
  if (!v) return "—";
  if (v.exact) return String(v.value);
  return `[${v.lower}, ${v.upper === null || v.upper === undefined ? "?" : v.upper}]`;
}

export function isOptimal(name) {
  return service.optimal.has(name);
}

export function strategyLabel(name) {
  const found = STRATEGIES.find(([v]) => v === name);
  return found ? found[1] : name;
}

// How the page names a game's best known strategy: a one-step strategy, or the hybrid tree it ships.
export function bestKnownLabel(best) {
  if (!best.hybrid) return strategyLabel(best.strategy);
  return `Hybrid (${strategyLabel(best.hybrid.above)} above ${best.hybrid.exact_at_most} candidates, optimal below)`;
}

export const game = {
  info: null, // GET /v1/games/{game}: positions, symbols, alphabet, responses, codes
  body() {
    const preset = $("preset").value;
    if (preset !== "custom") return preset;
    return {
      positions: Number($("positions").value),
      symbols: Number($("symbols").value),
      repetition: $("repetition").checked,
    };
  },
  path() {
    const b = this.body();
    return typeof b === "string" ? b : `${b.positions},${b.symbols},${b.repetition ? 1 : 0}`;
  },
  loads: 0,
  // Load the chosen game's description.  Choices can change faster than answers come back: only the
  // latest choice's answer (or error) counts, an older one resolves to null and changes nothing.
  async load() {
    const seq = ++this.loads;
    this.info = null;
    $("game-info").textContent = "";
    let info;
    try {
      info = await api("GET", `/v1/games/${encodeURIComponent(this.path())}`);
    } catch (err) {
      if (seq !== this.loads) return null;
      throw err;
    }
    if (seq !== this.loads) return null;
    this.info = info;
    const rep = info.repetition ? "repeats allowed" : "all different";
    let line = `${info.positions} positions, symbols ${info.alphabet} (${rep}): ${info.codes} possible secrets.`;
    const atlas = info.atlas;
    if (atlas && atlas.total.exact) {
      line += ` Optimal play: ${atlas.total.value} guesses in all (${atlas.average.toFixed(3)} on average)`;
      line += atlas.worst_case.exact ? `, never more than ${atlas.worst_case.value} with the best worst case.` : ".";
    } else if (atlas) {
      line += ` Not solved yet: optimal play needs between ${atlas.total.lower} and ${atlas.total.upper ?? "?"} guesses`
        + " in all (proven bounds)";
      line += atlas.worst_case.exact
        ? `; the best worst case is ${atlas.worst_case.value} guesses (proven).`
        : `; the best worst case is ${bracket(atlas.worst_case)} guesses.`;
    }
    $("game-info").textContent = line;
    return info;
  },
  // Whether the optimal strategies of the chosen game can be shown: solved (their trees ship), or small
  // enough for the exact search and not one of the atlas's unsolved games (whose search is a campaign).
  optimalReachable() {
    const info = this.info;
    if (!info) return false;
    if (info.atlas) return info.atlas.total.exact;
    return info.codes <= (service.limits.exact_search_max_codes || 0);
  },
};

export function historyBody(turns) {
  return turns.map((t) => ({ guess: t.guess, bulls: t.bulls, cows: t.cows }));
}

// The atlas's games, as two groups of the game menu.  Those it solved exactly are answered from shipped
// trees, so the computer plays and the explorer shows them at once; the others have proven bounds only,
// and their optimal strategies are searched (or handed to a job) like any custom game's.
function fillAtlas(games) {
  const custom = $("preset").querySelector('option[value="custom"]');
  for (const [label, solved] of [["Solved exactly (the atlas)", true], ["In the atlas, bounds only", false]]) {
    const group = document.createElement("optgroup");
    group.label = label;
    for (const g of games) {
      if ((g.average !== null) !== solved) continue;
      const rep = g.repetition ? "repeats allowed" : "all different";
      group.append(new Option(`${g.positions} of ${g.symbols} symbols, ${rep} (${g.codes} codes)`, g.game));
    }
    if (group.children.length) $("preset").insertBefore(group, custom);
  }
}

export async function fillStrategies() {
  const info = await api("GET", "/v1/games");
  service.atlas = info.atlas;
  service.limits = info.limits;
  service.optimal = new Set(info.strategies.filter((s) => s.kind === "optimal").map((s) => s.name));
  fillAtlas(info.atlas);
  STRATEGIES.splice(0, STRATEGIES.length, ...info.strategies.map((s) => [s.name, s.label]));
  for (const sel of document.querySelectorAll("select.strategy")) {
    if (sel.classList.contains("optional")) sel.add(new Option("— none —", ""));
    for (const [value, label] of STRATEGIES) sel.add(new Option(label, value));
  }
  $("x-b").value = "minimax";
  return info;
}

export function renderRows(tbody, rows, badLast) {
  tbody.replaceChildren();
  rows.forEach((cells, i) => {
    const tr = document.createElement("tr");
    if (badLast && i === rows.length - 1) tr.className = "bad";
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = String(c);
      tr.append(td);
    }
    tbody.append(tr);
  });
}
