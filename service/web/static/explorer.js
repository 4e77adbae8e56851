// Mode 3: strategy statistics, comparison, histogram and a lazily loaded tree.

import { $, api } from "./api.js";
import { clearError, guarded } from "./errors.js";
import { game, strategyLabel } from "./game.js";

const MEASURES = [
  ["total", "Total guesses (all secrets)"],
  ["average", "Average guesses"],
  ["worst_case", "Worst case"],
  ["secrets", "Secrets"],
  ["nodes", "Tree nodes"],
  ["first_guess", "First guess"],
  ["optimal", "Proven optimal"],
];

export const explorer = {
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
    $("x-tree-name").textContent = strategyLabel(a);
    $("x-results").hidden = false;
    await this.tree(a, q);
  },

  summary(names, stats) {
    const table = $("x-summary");
    const head = table.tHead.rows[0];
    head.replaceChildren(Object.assign(document.createElement("th"), { scope: "col", textContent: "Measure" }));
    for (const n of names) {
      head.append(Object.assign(document.createElement("th"), {
        scope: "col", className: "num", textContent: strategyLabel(n),
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
      item.append(sw, strategyLabel(n));
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
