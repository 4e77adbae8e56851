// Mode 4: the atlas, every game of the family up to 8192 codes, as a table that sorts and filters and a
// chart of average guesses against the number of codes, both drawn from GET /v1/games (nothing here is
// an image file).  A game's row opens it in the strategy explorer.

import { $ } from "./api.js";
import { bracket, service } from "./game.js";

const SVG = "http://www.w3.org/2000/svg";

// [key, header, how a row sorts by it]: a bracket sorts by its lower bound, then its upper one.
const number = (key) => (g) => [g.values[key].exact ? g.values[key].value : g.values[key].lower,
  g.values[key].upper ?? Infinity];
const COLUMNS = [
  ["game", "Game", (g) => [g.positions, g.symbols, g.repetition ? 1 : 0]],
  ["codes", "Codes", (g) => [g.codes]],
  ["total", "T (in all)", number("total")],
  ["average", "Average", (g) => [g.average ?? g.values.total.lower / g.codes]],
  ["worst_case", "W (worst)", number("worst_case")],
  ["total_within_worst_case", "T within W", number("total_within_worst_case")],
  ["total_depth", "D", number("total_depth")],
  ["worst_case_movers", "W-movers", number("worst_case_movers")],
  ["status", "Status", (g) => [g.exact ? 0 : 1]],
];

function compare(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

export function gameName(g) {
  return `${g.positions} × ${g.symbols}, ${g.repetition ? "repeats" : "all different"}`;
}

export const atlas = {
  sortKey: "codes",
  ascending: true,
  ready: false,
  onOpen: null, // (spec) => void, set by app.js

  init(onOpen) {
    this.onOpen = onOpen;
    const games = service.atlas;
    const fill = (id, values) => {
      for (const v of values) $(id).add(new Option(String(v), String(v)));
    };
    fill("a-positions", [...new Set(games.map((g) => g.positions))].sort((x, y) => x - y));
    fill("a-symbols", [...new Set(games.map((g) => g.symbols))].sort((x, y) => x - y));
    for (const [key, header] of COLUMNS) $("a-sort").add(new Option(header, key));
    $("a-sort").value = this.sortKey;
    for (const id of ["a-positions", "a-symbols", "a-repetition", "a-status"]) {
      $(id).addEventListener("change", () => this.render());
    }
    $("a-sort").addEventListener("change", () => this.sortBy($("a-sort").value, true));
    $("a-order").addEventListener("click", () => this.sortBy(this.sortKey, !this.ascending));
    const head = $("a-table").tHead.rows[0];
    for (const [key, header] of COLUMNS) {
      const th = Object.assign(document.createElement("th"), { scope: "col" });
      th.dataset.key = key;
      if (["game", "status"].every((k) => k !== key)) th.className = "num";
      const button = Object.assign(document.createElement("button"), { type: "button", className: "sort", textContent: header });
      button.addEventListener("click", () => this.sortBy(key, key === this.sortKey ? !this.ascending : true));
      th.append(button);
      head.append(th);
    }
    this.ready = true;
    this.render();
  },

  sortBy(key, ascending) {
    this.sortKey = key;
    this.ascending = ascending;
    $("a-sort").value = key;
    $("a-order").textContent = ascending ? "Ascending" : "Descending";
    $("a-order").setAttribute("aria-pressed", String(!ascending));
    this.render();
  },

  // The games the filters let through, in the chosen order.
  rows() {
    const pos = $("a-positions").value;
    const sym = $("a-symbols").value;
    const rep = $("a-repetition").value;
    const status = $("a-status").value;
    const by = COLUMNS.find(([k]) => k === this.sortKey)[2];
    return service.atlas
      .filter((g) => (!pos || g.positions === Number(pos)) && (!sym || g.symbols === Number(sym))
        && (!rep || g.repetition === (rep === "1")) && (!status || g.exact === (status === "exact")))
      .sort((x, y) => (this.ascending ? 1 : -1) * compare(by(x), by(y)) || compare(COLUMNS[1][2](x), COLUMNS[1][2](y)));
  },

  render() {
    if (!this.ready) return;
    const rows = this.rows();
    for (const th of $("a-table").tHead.rows[0].cells) {
      if (th.dataset.key === this.sortKey) th.setAttribute("aria-sort", this.ascending ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    }
    const body = $("a-table").tBodies[0];
    body.replaceChildren();
    for (const g of rows) {
      const tr = document.createElement("tr");
      tr.dataset.game = g.game;
      tr.className = g.exact ? "exact" : "bracketed";
      const cells = {
        codes: String(g.codes),
        total: bracket(g.values.total),
        average: g.average !== null ? g.average.toFixed(4)
          : `[${(g.values.total.lower / g.codes).toFixed(3)}, ${g.values.total.upper === null ? "?" : (g.values.total.upper / g.codes).toFixed(3)}]`,
        worst_case: bracket(g.values.worst_case),
        total_within_worst_case: bracket(g.values.total_within_worst_case),
        total_depth: bracket(g.values.total_depth),
        worst_case_movers: bracket(g.values.worst_case_movers),
        status: g.exact ? "solved" : "bounds only",
      };
      for (const [key, header] of COLUMNS) {
        const cell = document.createElement(key === "game" ? "th" : "td");
        cell.dataset.label = header;
        cell.dataset.key = key;
        if (key === "game") {
          cell.scope = "row";
          const open = Object.assign(document.createElement("button"), {
            type: "button", className: "link", textContent: gameName(g),
          });
          open.setAttribute("aria-label", `Open ${gameName(g)} (${g.codes} codes) in the strategy explorer`);
          open.addEventListener("click", () => this.onOpen(g.game));
          cell.append(open);
        } else {
          cell.textContent = cells[key];
          if (key !== "status") cell.className = "num";
        }
        tr.append(cell);
      }
      body.append(tr);
    }
    $("a-count").textContent = `${rows.length} of ${service.atlas.length} games shown.`;
    this.chart(service.atlas, rows);
  },

  // Average guesses of optimal play against the number of codes (log scale): one series per repetition
  // rule; an unsolved game is a vertical range from its lower to its upper bound per secret.  It plots the
  // games the table shows (`shown`, after its filters), on the axes of every game (`games`), so that a filter
  // changes the marks, never the scale they are read against.
  chart(games, shown) {
    const W = 640, H = 380, left = 48, right = 24, top = 14, bottom = 44;
    const xs = games.map((g) => Math.log2(g.codes));
    const lo = Math.floor(Math.min(...xs)), hi = Math.ceil(Math.max(...xs));
    const avg = (g, v) => v / g.codes;
    const ys = games.flatMap((g) => [avg(g, g.values.total.lower), avg(g, g.values.total.upper ?? g.values.total.lower)]);
    const yTop = Math.ceil(Math.max(...ys));
    const x = (codes) => left + ((Math.log2(codes) - lo) / (hi - lo)) * (W - left - right);
    const y = (v) => top + (1 - v / yTop) * (H - top - bottom);
    const el = (name, attrs, text) => {
      const node = document.createElementNS(SVG, name);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      if (text !== undefined) node.textContent = text;
      return node;
    };
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "a-chart-title a-chart-caption",
      class: "atlas-svg" });
    svg.append(el("title", { id: "a-chart-title" }, "Atlas chart: average guesses against the number of codes"));
    for (let e = lo; e <= hi; e += e < 6 ? 2 : 1) {
      const gx = x(2 ** e);
      svg.append(el("line", { x1: gx, y1: top, x2: gx, y2: H - bottom, class: "grid" }));
      svg.append(el("text", { x: gx, y: H - bottom + 16, "text-anchor": "middle" }, String(2 ** e)));
    }
    for (let v = 0; v <= yTop; v++) {
      svg.append(el("line", { x1: left, y1: y(v), x2: W - right, y2: y(v), class: "grid" }));
      svg.append(el("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
    }
    svg.append(el("text", { x: (left + W - right) / 2, y: H - 8, "text-anchor": "middle" }, "codes (log scale)"));
    svg.append(el("text", { x: 12, y: (top + H - bottom) / 2, "text-anchor": "middle",
      transform: `rotate(-90 12 ${(top + H - bottom) / 2})` }, "average guesses"));
    const open = shown.filter((g) => !g.values.total.exact);
    const shift = (g) => {
      const same = open.filter((o) => o.codes === g.codes);
      return 7 * (same.indexOf(g) - (same.length - 1) / 2);
    };
    for (const g of shown) {
      const cls = g.repetition ? "rep" : "norep";
      const t = g.values.total;
      const name = `${gameName(g)}, ${g.codes} codes`;
      const mark = el("g", { class: `point ${cls}`, "data-game": g.game });
      if (t.exact) {
        const cx = x(g.codes), cy = y(avg(g, t.value));
        mark.append(g.repetition ? el("circle", { cx, cy, r: 4 }) : el("rect", { x: cx - 4, y: cy - 4, width: 8, height: 8 }));
        mark.append(el("title", {}, `${name}: ${g.average.toFixed(4)} on average (proven)`));
      } else {
        const upper = t.upper ?? t.lower;
        const cx = x(g.codes) + shift(g);
        mark.classList.add("range");
        mark.append(el("line", { x1: cx, y1: y(avg(g, t.lower)), x2: cx, y2: y(avg(g, upper)) }));
        for (const v of [t.lower, upper]) {
          mark.append(el("line", { x1: cx - 4, y1: y(avg(g, v)), x2: cx + 4, y2: y(avg(g, v)) }));
        }
        mark.append(el("title", {}, `${name}: between ${avg(g, t.lower).toFixed(3)} and ${avg(g, upper).toFixed(3)} `
          + "on average (proven bounds; not solved yet)"));
      }
      svg.append(mark);
    }
    const legend = el("g", { class: "legend", transform: `translate(${left + 10}, ${top + 8})` });
    const items = [["rep", "repeats allowed", "circle"], ["norep", "all different", "rect"],
      ["rep", "not solved: proven range (by rule)", "line"]];
    items.forEach(([cls, text, shape], i) => {
      const row = el("g", { class: `point ${cls}${shape === "line" ? " range" : ""}`, transform: `translate(0, ${i * 18})` });
      if (shape === "circle") row.append(el("circle", { cx: 5, cy: 0, r: 4 }));
      else if (shape === "rect") row.append(el("rect", { x: 1, y: -4, width: 8, height: 8 }));
      else row.append(el("line", { x1: 5, y1: -7, x2: 5, y2: 7 }));
      row.append(el("text", { x: 16, y: 4 }, text));
      legend.append(row);
    });
    svg.append(legend);
    $("a-chart").replaceChildren(svg);
  },
};
