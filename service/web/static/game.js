// The game chosen at the top, shared by the modes, and the helpers they share.

import { $, api } from "./api.js";
import { look, setLook } from "./codes.js";

// [name, label] of every strategy, in the service's order: read from GET /v1/games at start-up, so
// the page offers exactly what the service plays.
export const STRATEGIES = [];

// What GET /v1/games says besides the strategies: the named games, the atlas's games (with their five
// numbers) and the service's limits, read once at start-up.
export const service = { presets: [], atlas: [], limits: {}, optimal: new Set(), sources: {} };

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

// How the page names a game's best known tree: its short name from the API (`known.tree.name`).
export function bestKnownLabel(info) {
  const tree = info && info.known && info.known.tree;
  return tree && tree.name ? tree.name : "Best known tree";
}

const specOf = (g) => `${g.positions},${g.symbols},${g.repetition ? 1 : 0}`;

// The menu's entry of a game given as "p,s,r": its name when it is a named game (Mastermind is
// "mastermind" in the menu, not "4,6,1").
export function menuValue(spec) {
  const named = service.presets.find((p) => specOf(p) === spec);
  return named ? named.name : spec;
}

export const game = {
  info: null, // GET /v1/games/{game}: positions, symbols, alphabet, responses, codes, family, known
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
  // A file name of the game for downloads ("mastermind", "5-8-1").
  slug() {
    return this.path().replace(/[^a-z0-9]+/gi, "-");
  },
  loads: 0,
  ready: Promise.resolve(null),
  // Load the chosen game's description.  Choices can change faster than answers come back: only the
  // latest choice's answer (or error) counts, an older one resolves to null and changes nothing.  An
  // action started while a load is under way (New game clicked right after a size was typed) waits
  // for it through `ready`.
  load() {
    const loading = this.fetch();
    this.ready = loading.catch(() => null); // waited for by actions; the failure is shown by the caller of load
    return loading;
  },
  async fetch() {
    const seq = ++this.loads;
    this.info = null;
    // the old line stays until the new one comes: clearing it would move the controls below it under
    // the pointer, and a click that committed a typed size would land beside its button
    $("game-info").setAttribute("aria-busy", "true");
    let info;
    try {
      info = await api("GET", `/v1/games/${encodeURIComponent(this.path())}`);
    } catch (err) {
      if (seq !== this.loads) return null;
      $("game-info").removeAttribute("aria-busy");
      $("game-info").textContent = "";
      $("game-provenance").hidden = true;
      throw err;
    }
    $("game-info").removeAttribute("aria-busy");
    if (seq !== this.loads) return null;
    this.info = info;
    setLook(info);
    this.describe(info);
    labelStrategies(info);
    return info;
  },
  // The game line: what the game is, then what is known of it in the API's words (`known.headline`),
  // and how it is known one click away.
  describe(info) {
    const kind = look.family === "mastermind"
      ? `${info.positions} pegs of ${info.symbols} colours, repeats allowed`
      : `${info.positions} ${info.repetition ? "symbols, repeats allowed" : "different symbols"} of ${info.symbols}`;
    $("game-info").replaceChildren(
      Object.assign(document.createElement("span"), { textContent: `${kind}: ${info.codes} possible secrets. ` }),
      Object.assign(document.createElement("strong"), { id: "game-known", textContent: headline(info) }),
    );
    const lines = provenance(info);
    $("game-provenance-list").replaceChildren(...lines.map(provenanceItem));
    $("game-provenance").hidden = !lines.length;
  },
  // The k-movers mode's default depth limit: the game's smallest worst case as `known` says it (proven for
  // a solved game, the best known tree's otherwise), null when nothing is known.
  worstCase() {
    const k = this.info && this.info.known;
    return k && k.worst_case ? k.worst_case : null;
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

// The strategy menus' names for the chosen game: "Optimal" only where what the strategy plays is proven.  A
// game whose fewest guesses in all are played by a tree not proven optimal (a records game, an unsolved atlas
// game with a shipped hybrid) names that strategy in the service's few words for such a tree; a game whose
// fewest secrets at the worst case no shipped tree nor exact search answers (the same big games) is played by the
// criterion's heuristic, and named so.
function labelStrategies(info) {
  const tree = info.known && info.known.tree;
  const unproven = info.known && info.known.status !== "solved" && tree && tree.strategy === "best-known";
  const labels = {
    "optimal-total": unproven ? `Fewest guesses in all: ${service.sources["best-known"]}` : strategyLabel("optimal-total"),
    "optimal-kmovers": game.optimalReachable() ? strategyLabel("optimal-kmovers")
      : `Fewest games at the worst case: ${service.sources.heuristic}`,
  };
  for (const sel of document.querySelectorAll("select.strategy")) {
    for (const option of sel.options) if (option.value in labels) option.textContent = labels[option.value];
  }
}

function headline(info) {
  const k = info.known;
  if (!k || !k.headline) return "";
  return k.headline.charAt(0).toUpperCase() + k.headline.slice(1) + ".";
}

// How what the headline says is known: the tree and how it was made (the command, which may be a long
// chain for a record tree), the bound, the published strategies it is compared with.  Each item is
// [words, command or null].
function provenance(info) {
  const out = [];
  const k = info.known;
  const tree = k && k.tree;
  if (tree) {
    const p = tree.provenance || {};
    out.push([`Strategy: ${tree.name}${p.detail ? ` (${p.detail})` : ""}.`, null]);
    if (p.command) {
      const where = [p.machine, p.seconds ? `${p.seconds} s` : null, p.date].filter(Boolean).join(", ");
      out.push([`Made by${where ? ` (${where})` : ""}: `, p.command]);
    }
  }
  const bound = (info.record && info.record.lower_bound) || (info.atlas && info.atlas.lower_bound);
  if (bound) out.push([`Lower bound ${bound.value} (fewest guesses in all, proven by refining ${bound.depth} plies): `, bound.command]);
  for (const p of (info.record && info.record.published) || []) {
    out.push([`Published: ${p.total !== null ? `${p.total} guesses in all` : `${p.average} on average`} (${p.how}; ${p.source}).`, null]);
  }
  return out;
}

// A command as code; a long chain of them (a record tree's, thousands of characters) folded, one more
// click away.
const LONG_COMMAND = 300;

function provenanceItem([text, command]) {
  const li = Object.assign(document.createElement("li"), { textContent: text });
  if (!command) return li;
  const code = Object.assign(document.createElement("code"), { className: "command", textContent: command });
  if (command.length <= LONG_COMMAND) {
    li.append(code);
    return li;
  }
  const steps = command.split(" && ").length;
  const fold = Object.assign(document.createElement("details"), { className: "command-chain" });
  fold.append(Object.assign(document.createElement("summary"), {
    textContent: `${steps} command${steps === 1 ? "" : "s"}, ${command.length} characters: show`,
  }), code);
  li.append(fold);
  return li;
}

// The worst-case mode's depth limit: optimal-kmovers counts the secrets needing `max_guesses` guesses,
// so a "Max guesses" field shows by a strategy menu when it is chosen, set to the game's proven
// smallest worst case when that is known (the service's own default then); the player may change it.
export const depth = {
  field(prefix) {
    return $(`${prefix}-max`);
  },
  sync(prefix) {
    const on = $(`${prefix}-strategy`).value === "optimal-kmovers";
    this.field(prefix).closest(".depth").hidden = !on;
    if (on && !this.field(prefix).value && game.worstCase()) this.field(prefix).value = String(game.worstCase());
  },
  // A new game: the default of the new game.
  reset() {
    for (const prefix of ["c", "p"]) {
      this.field(prefix).value = "";
      this.sync(prefix);
    }
    const worst = game.worstCase();
    $("x-max").placeholder = worst ? `auto (${worst})` : "auto";
  },
  // The strategy (and depth limit) part of a next-move request.
  body(prefix) {
    const out = { strategy: $(`${prefix}-strategy`).value };
    const field = this.field(prefix);
    if (!field.closest(".depth").hidden && field.value.trim()) out.max_guesses = Number(field.value);
    return out;
  },
};

export function historyBody(turns) {
  return turns.map((t) => ({ guess: t.guess, bulls: t.bulls, cows: t.cows }));
}

// The game menu: the named games first (each once), then every other game of the atlas under "More
// games", then a custom size.  Those the atlas solved exactly are answered from shipped trees; the
// others have proven bounds (and a best known tree).
function fillMenu(presets, atlasGames) {
  const menu = $("preset");
  const custom = new Option("Custom size…", "custom");
  const named = new Set(presets.map(specOf));
  const items = presets.map((p) => new Option(p.label || p.name, p.name));
  const more = document.createElement("optgroup");
  more.label = "More games (the atlas)";
  for (const g of atlasGames) {
    if (named.has(g.game)) continue;
    const kind = g.repetition ? "repeats allowed" : "all different";
    const state = g.average !== null ? "solved" : "bounds only";
    more.append(new Option(`${g.positions} positions, ${g.symbols} symbols, ${kind} (${g.codes} codes; ${state})`, g.game));
  }
  menu.replaceChildren(...items, more, custom);
  menu.value = presets.length ? presets[0].name : "custom";
}

export async function fillStrategies() {
  const info = await api("GET", "/v1/games");
  service.presets = info.presets;
  service.atlas = info.atlas;
  service.limits = info.limits;
  service.optimal = new Set(info.strategies.filter((s) => s.kind === "optimal").map((s) => s.name));
  service.sources = Object.fromEntries(info.sources.map((s) => [s.name, s.label]));
  fillMenu(info.presets, info.atlas);
  STRATEGIES.splice(0, STRATEGIES.length, ...info.strategies.map((s) => [s.name, s.label]));
  for (const sel of document.querySelectorAll("select.strategy")) {
    if (sel.classList.contains("optional")) sel.add(new Option("— none —", ""));
    for (const [value, label] of STRATEGIES) sel.add(new Option(label, value));
  }
  $("x-b").value = "minimax";
  return info;
}

// Rows of a table: each cell a text or an element (a code's pegs, a response's key pegs).
export function renderRows(tbody, rows, badLast) {
  tbody.replaceChildren();
  rows.forEach((cells, i) => {
    const tr = document.createElement("tr");
    if (badLast && i === rows.length - 1) tr.className = "bad";
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.append(c);
      else td.textContent = String(c);
      tr.append(td);
    }
    tbody.append(tr);
  });
}
