// The web page's logic.  It talks only to the public /v1 API (the same calls a bot would make);
// every failure of a call is shown with the problem's `detail`, and the page stays usable.

const $ = (id) => document.getElementById(id);

// [name, label] of every strategy, in the service's order: read from GET /v1/games at start-up, so
// the page offers exactly what the service plays.
let STRATEGIES = [];

// ---------------------------------------------------------------------------------------------
// API access

class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || "request failed");
    this.problem = problem;
  }
  get slug() {
    return String(this.problem.type || "").split("/").pop();
  }
}

async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json, application/problem+json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (err) {
    throw new ApiError({ title: "Network error", detail: `the service could not be reached (${err.message})` });
  }
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!resp.ok) {
    if (data && typeof data === "object" && (data.detail || data.title)) throw new ApiError(data);
    throw new ApiError({ title: `HTTP ${resp.status}`, status: resp.status, detail: text.slice(0, 300) || resp.statusText });
  }
  return data;
}

// A failure is shown next to the control that caused it: in a message right after the control's
// group (its row, fieldset or form), tied to the control with aria-describedby and aria-invalid, and
// announced.  One message at a time; any later success clears it.  A problem with the game itself
// (invalid, too large) belongs to the game's controls, whichever action ran into it.
const GAME_PROBLEMS = new Set(["invalid-game", "game-too-large"]);

function gameControl() {
  return $("preset").value === "custom" ? $("custom") : $("preset");
}

function errorSlot(control) {
  const id = `${control.id}-error`;
  let slot = $(id);
  if (!slot) {
    slot = document.createElement("p");
    slot.id = id;
    slot.className = "field-error";
    slot.setAttribute("role", "alert");
    (control.closest(".row, fieldset, form, .responses") || control).after(slot);
  }
  return slot;
}

// Tie a message to its control: an input or select (or a fieldset's inputs) is marked invalid; a
// button or a group of buttons is only described by it.
function describe(control, slot) {
  const fields = control.matches("input, select") ? [control] : [...control.querySelectorAll("input, select")];
  for (const c of fields.length ? fields : [control]) {
    if (fields.length) c.setAttribute("aria-invalid", "true");
    c.setAttribute("aria-describedby", slot.id);
  }
}

function showError(err, control) {
  const problem = err instanceof ApiError ? err.problem : { title: "Error", detail: String(err && err.message || err) };
  const slug = String(problem.type || "").split("/").pop();
  const at = GAME_PROBLEMS.has(slug) ? gameControl() : control || gameControl();
  clearError();
  const slot = errorSlot(at);
  const title = document.createElement("strong");
  title.textContent = `${problem.title || "Error"}:`;
  slot.replaceChildren(title, ` ${problem.detail || ""}`);
  slot.hidden = false;
  describe(at, slot);
}

function clearError() {
  for (const slot of document.querySelectorAll(".field-error")) slot.hidden = true;
  for (const c of document.querySelectorAll("[aria-invalid], [aria-describedby$='-error']")) {
    c.removeAttribute("aria-invalid");
    c.removeAttribute("aria-describedby");
  }
}

// Run an action, showing (not throwing) its error next to `control` (or next to `control(err)`, when
// which control is to blame depends on the error); undefined when it failed.
async function guarded(action, control) {
  try {
    const out = await action();
    return out;
  } catch (err) {
    showError(err, typeof control === "function" ? control(err) : control);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The game chosen at the top, shared by the three modes

const game = {
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
    $("game-info").textContent =
      `${info.positions} positions, symbols ${info.alphabet} (${rep}): ${info.codes} possible secrets.`;
    return info;
  },
};

function historyBody(turns) {
  return turns.map((t) => ({ guess: t.guess, bulls: t.bulls, cows: t.cows }));
}

async function fillStrategies() {
  const info = await api("GET", "/v1/games");
  STRATEGIES = info.strategies.map((s) => [s.name, s.label]);
  for (const sel of document.querySelectorAll("select.strategy")) {
    if (sel.classList.contains("optional")) sel.add(new Option("— none —", ""));
    for (const [value, label] of STRATEGIES) sel.add(new Option(label, value));
  }
  $("x-b").value = "minimax";
}

function renderRows(tbody, rows, badLast) {
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

// ---------------------------------------------------------------------------------------------
// Mode 1: the computer guesses the person's secret

const computer = {
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

// ---------------------------------------------------------------------------------------------
// Mode 2: the person guesses the computer's secret (held encrypted in a match token)

const person = {
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

// ---------------------------------------------------------------------------------------------
// Mode 3: strategy statistics, comparison, histogram and a lazily loaded tree

const MEASURES = [
  ["total", "Total guesses (all secrets)"],
  ["average", "Average guesses"],
  ["worst_case", "Worst case"],
  ["secrets", "Secrets"],
  ["nodes", "Tree nodes"],
  ["first_guess", "First guess"],
  ["optimal", "Proven optimal"],
];

const explorer = {
  async show() {
    const a = $("x-a").value;
    const b = $("x-b").value;
    const max = $("x-max").value;
    $("x-status").textContent = "Loading…";
    const q = max ? `?max_guesses=${encodeURIComponent(max)}` : "";
    const names = b && b !== a ? [a, b] : [a];
    const stats = await guarded(() => Promise.all(names.map((s) =>
      api("GET", `/v1/strategies/${encodeURIComponent(game.path())}/${encodeURIComponent(s)}${q}`))),
    (err) => (/max_guesses/.test(err.message) ? $("x-max") : $("x-a")));
    if (!stats) {
      $("x-status").textContent = "";
      return;
    }
    clearError();
    $("x-status").textContent = "";
    this.summary(names, stats);
    this.chart(names, stats);
    $("x-tree-name").textContent = STRATEGIES.find(([v]) => v === a)[1];
    $("x-results").hidden = false;
    await this.tree(a, q);
  },

  summary(names, stats) {
    const table = $("x-summary");
    const head = table.tHead.rows[0];
    head.replaceChildren(Object.assign(document.createElement("th"), { scope: "col", textContent: "Measure" }));
    for (const n of names) {
      head.append(Object.assign(document.createElement("th"), {
        scope: "col", className: "num", textContent: STRATEGIES.find(([v]) => v === n)[1],
      }));
    }
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const [key, label] of MEASURES) {
      const tr = document.createElement("tr");
      tr.dataset.measure = key;
      tr.append(Object.assign(document.createElement("th"), { scope: "row", textContent: label }));
      for (const s of stats) {
        let v = s[key];
        if (key === "average") v = Number(v).toFixed(4);
        if (key === "optimal") v = v ? "yes" : "no";
        tr.append(Object.assign(document.createElement("td"), { className: "num", textContent: String(v) }));
      }
      body.append(tr);
    }
  },

  chart(names, stats) {
    const box = $("x-chart");
    box.replaceChildren();
    const lengths = [...new Set(stats.flatMap((s) => Object.keys(s.histogram).map(Number)))].sort((x, y) => x - y);
    const top = Math.max(1, ...stats.flatMap((s) => Object.values(s.histogram)));
    const legend = document.createElement("p");
    legend.className = "legend";
    names.forEach((n, i) => {
      const item = document.createElement("span");
      const sw = document.createElement("span");
      sw.className = `swatch bar ${i ? "b" : "a"}`;
      item.append(sw, STRATEGIES.find(([v]) => v === n)[1]);
      legend.append(item);
    });
    box.append(legend);
    for (const k of lengths) {
      const row = document.createElement("div");
      row.className = "bar-row";
      row.dataset.length = String(k);
      const label = document.createElement("span");
      label.textContent = `${k} guess${k === 1 ? "" : "es"}`;
      const bars = document.createElement("div");
      bars.className = "bars";
      stats.forEach((s, i) => {
        const count = s.histogram[String(k)] || 0;
        const bar = document.createElement("div");
        bar.className = `bar ${i ? "b" : "a"}`;
        bar.style.width = `${(80 * count) / top}%`; // room for the count after the longest bar
        bar.setAttribute("role", "img");
        bar.setAttribute("aria-label", `${names[i]}: ${count} secrets solved in ${k} guesses`);
        const v = document.createElement("span");
        v.className = "count";
        v.textContent = String(count);
        bar.append(v);
        bars.append(bar);
      });
      row.append(label, bars);
      box.append(row);
    }
  },

  async tree(strategy, query) {
    const box = $("x-tree");
    box.replaceChildren();
    const root = await this.fetchNode(strategy, query, []);
    if (!root) return;
    const el = this.nodeElement(strategy, query, [], root.node, root.turn, null);
    box.append(el);
    if (el.tagName === "DETAILS") el.open = true;
  },

  async fetchNode(strategy, query, path) {
    const params = new URLSearchParams(query.slice(1));
    params.set("depth", "1");
    if (path.length) params.set("path", path.join(", "));
    return guarded(() => api("GET",
      `/v1/strategies/${encodeURIComponent(game.path())}/${encodeURIComponent(strategy)}/tree?${params}`), $("x-a"));
  },

  // A node as <details> (opened: its responses, loaded on first opening when not yet known).
  nodeElement(strategy, query, path, node, turn, response) {
    const prefix = response === null ? "" : `${response} → `;
    const expandable = node.children || node.more;
    if (!expandable) {
      const leaf = document.createElement("div");
      leaf.className = "leaf";
      leaf.textContent = `${prefix}guess ${turn}: ${node.guess}${node.hit ? " — solved" : ""}`;
      return leaf;
    }
    const details = document.createElement("details");
    details.dataset.path = path.join(", ");
    const summary = document.createElement("summary");
    summary.textContent = `${prefix}guess ${turn}: ${node.guess} (${node.candidates} candidates)`;
    details.append(summary);
    let children = node.children || null;
    const fill = () => {
      if (node.hit) {
        const win = document.createElement("div");
        win.className = "leaf";
        win.textContent = `${game.info ? `${game.info.positions}.0` : "all bulls"} → solved at guess ${turn}`;
        details.append(win);
      }
      for (const [r, child] of Object.entries(children)) {
        details.append(this.nodeElement(strategy, query, [...path, `${node.guess} ${r}`], child, turn + 1, r));
      }
    };
    if (children) {
      fill();
    } else {
      details.addEventListener("toggle", async () => {
        if (!details.open || children) return;
        details.setAttribute("aria-busy", "true");
        const got = await this.fetchNode(strategy, query, path);
        details.removeAttribute("aria-busy");
        if (!got || children) return;
        children = got.node.children || {};
        fill();
      });
    }
    return details;
  },
};

// ---------------------------------------------------------------------------------------------
// Wiring

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
  $("c-count").textContent = "—";
  $("p-count").textContent = "—";
  const ok = await guarded(() => game.load(), gameControl());
  if (ok) clearError();
}

async function init() {
  await guarded(() => fillStrategies(), gameControl());
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
