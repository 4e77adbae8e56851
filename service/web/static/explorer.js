// Mode 3: strategy statistics, comparison, histogram and a lazily loaded tree.

import { $, ApiError, api } from "./api.js";
import { codeElement, splitResponse, words } from "./codes.js";
import { clearError, gameControl, guarded, showError } from "./errors.js";
import { bestKnownLabel, bracket, game, isOptimal, service, strategyLabel } from "./game.js";

const MEASURES = [
  ["total", "Total guesses (all secrets)"],
  ["average", "Average guesses"],
  ["worst_case", "Worst case"],
  ["movers", "Secrets needing the worst case"],
  ["secrets", "Secrets"],
  ["nodes", "Tree nodes"],
  ["first_guess", "First guess"],
  ["optimal", "Proven optimal"],
];

const POLL_MS = 400;
const QUIET_WORKER_MS = 4000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Thrown when a newer request of the explorer (another Show, another game) made this one moot.
class Superseded extends Error {}

export const explorer = {
  seq: 0,
  treeShown: 0, // the question (seq) whose tree is shown

  // Forget what is shown (the game changed): any job being followed is left to finish on its own.
  reset() {
    this.seq += 1;
    for (const id of ["x-results", "x-notice", "x-jobs"]) $(id).hidden = true;
    $("x-status").textContent = "";
    delete $("x-status").dataset.done;
  },

  // The strategy actually shown for a strategy asked for: an optimal one whose tree cannot exist yet (an
  // unsolved atlas game, or a game past the exact search's size) is stood in for by the best tree known.
  resolve(asked) {
    if (!isOptimal(asked) || game.optimalReachable()) {
      return { asked, name: asked, label: strategyLabel(asked), standIn: false };
    }
    const best = game.info.atlas && game.info.atlas.best_known;
    const record = game.info.record && game.info.record.best_known;
    if (best || record) {
      return { asked, name: best ? best.strategy : record.tree, label: bestKnownLabel(game.info), standIn: true };
    }
    return { asked, name: "entropy", label: `${strategyLabel("entropy")}: best known`, standIn: true };
  },

  // Show the strategy asked for, and the one to compare with when there is one.  Both are asked at once;
  // the first is shown as soon as it is there (a shipped tree: at once), the comparison joins it when it
  // comes (it may be a tree a job builds, for minutes): a slow comparison never holds back the first.
  async show() {
    const seq = ++this.seq;
    const a = $("x-a").value;
    const b = $("x-b").value;
    const max = $("x-max").value;
    // nothing of an earlier question stays under a new one
    $("x-results").hidden = true;
    $("x-tree").replaceChildren();
    delete $("x-status").dataset.done;
    // the game's description first (an invalid custom game is shown by its fields, as at the top)
    if (!game.info && !(await guarded(() => game.load(), gameControl()))) return;
    const asked = b && b !== a ? [a, b] : [a];
    const plans = asked.map((s, i) => ({ ...this.resolve(s), order: i }));
    this.notice(plans);
    $("x-status").textContent = "Loading…";
    $("x-job-list").replaceChildren();
    $("x-jobs").hidden = true;
    const started = performance.now();
    // every answer settles into {stats} or {err}: none is left to reject unheard while another is awaited
    const asks = plans.map((p) => this.statistics(p, max, seq).then((stats) => ({ stats }), (err) => ({ err })));
    const depthAsked = (err) => max && /max_guesses|limit|within/.test(err.message);
    const first = await this.settle(asks[0], seq, (err) => (depthAsked(err) ? $("x-max") : $("x-a")));
    if (first === undefined) {
      if (seq === this.seq) { // failed: a comparison still waiting for its job is not followed any more
        this.seq += 1;
        $("x-jobs").hidden = true;
      }
      return;
    }
    const shown = [first];
    if (plans.length > 1) {
      const pending = plans[1];
      $("x-status").textContent = `Shown: ${plans[0].label}. ${pending.label}, to compare with, is coming…`;
      this.render(plans.slice(0, 1), shown, max);
      const second = await this.settle(asks[1], seq, (err) => (depthAsked(err) ? $("x-max") : $("x-b")));
      if (seq !== this.seq) return;
      if (second !== undefined) shown.push(second);
    }
    $("x-jobs").hidden = true;
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const done = plans.slice(0, shown.length);
    const built = done.filter((p) => p.job).map((p) => p.label);
    $("x-status").textContent = built.length
      ? `Built by a job in ${seconds} s: ${built.join(", ")}. The trees are kept, so they show at once next time.`
      : `Shown in ${seconds} s.`;
    $("x-status").dataset.seconds = seconds;
    $("x-status").dataset.jobs = String(built.length);
    this.render(done, shown, max);
    $("x-status").dataset.done = "true";
  },

  // One answer of show(): its statistics, or undefined when it failed (shown by the control `blame` names,
  // and nothing of it left on the page) or was made moot by a newer question.
  async settle(ask, seq, blame) {
    const got = await ask;
    if (seq !== this.seq || got.err instanceof Superseded) return undefined;
    if (got.err) {
      showError(got.err, blame(got.err));
      $("x-status").textContent = "";
      return undefined;
    }
    clearError();
    return got.stats;
  },

  // The summary and the chart of what is shown; the tree (and its downloads) of the first strategy, once.
  async render(plans, stats, max) {
    this.summary(plans, stats);
    this.chart(plans, stats);
    $("x-results").hidden = false;
    if (this.treeShown === this.seq) return;
    this.treeShown = this.seq;
    $("x-tree-name").textContent = plans[0].label;
    this.downloads(plans[0].name, max);
    await this.tree(plans[0].name, this.query(plans[0].name, max));
  },

  // Links taking the shown tree away: the whole tree as JSON, and one `CODE LENGTH` line per secret (the
  // format other projects publish their strategies in), both straight from the API.
  downloads(strategy, max) {
    const base = `/v1/strategies/${encodeURIComponent(game.path())}/${encodeURIComponent(strategy)}/tree`;
    const params = (format) => {
      const q = new URLSearchParams(this.query(strategy, max).slice(1));
      q.set("format", format);
      q.set("download", "true");
      return `${base}?${q}`;
    };
    $("x-download-json").href = params("json");
    $("x-download-lengths").href = params("lengths");
  },

  // The query of an optimal strategy's depth limit (one-step trees take none).
  query(strategy, max) {
    return max && isOptimal(strategy) ? `?max_guesses=${encodeURIComponent(max)}` : "";
  },

  // A tree's statistics: at once when it exists or is cheap; otherwise a job builds it, followed here.
  async statistics(plan, max, seq) {
    const body = {};
    if (max && isOptimal(plan.name)) body.max_guesses = Number(max);
    const path = `/v1/strategies/${encodeURIComponent(game.path())}/${encodeURIComponent(plan.name)}`;
    const got = await api("POST", path, body);
    if (!got.progress) return got;
    plan.job = got.id;
    return this.follow(got, plan, path + this.query(plan.name, max), seq);
  },

  // Poll a job until it ends, showing its progress; then the statistics it made.
  async follow(job, plan, statsPath, seq) {
    const item = document.createElement("li");
    const id = `x-progress-${plan.order}`; // one per strategy asked (two may share a job)
    const label = Object.assign(document.createElement("label"), { htmlFor: id, textContent: `${plan.label}: ` });
    const bar = Object.assign(document.createElement("progress"), { id, max: 1 });
    const text = Object.assign(document.createElement("span"), { className: "muted" });
    item.append(label, bar, " ", text);
    item.dataset.order = String(plan.order);
    // in the order of the strategies asked for, whichever job was accepted first
    const after = [...$("x-job-list").children].find((li) => Number(li.dataset.order) > plan.order);
    $("x-job-list").insertBefore(item, after || null);
    $("x-jobs").hidden = false;
    $("x-jobs-text").textContent = "Too big to build within a request: the trees are built by jobs.";
    if ($("x-status").textContent === "Loading…") $("x-status").textContent = ""; // the progress bars say it now
    let checkedAt = performance.now();
    let noWorker = false;
    for (;;) {
      if (seq !== this.seq) throw new Superseded();
      const p = job.progress;
      if (p.fraction === null || p.fraction === undefined) bar.removeAttribute("value");
      else bar.value = p.fraction;
      item.dataset.status = job.status;
      if (job.status === "done") {
        text.textContent = "done";
        break;
      }
      if (job.status === "failed" || job.status === "cancelled") {
        throw new ApiError({ title: "Job failed", detail: `the job building ${plan.label} ${job.status}: ${job.error || "no reason given"}` });
      }
      if (job.status === "running") {
        text.textContent = p.fraction ? `${Math.round(100 * p.fraction)}% of the secrets placed` : "running";
      } else {
        // whether a worker is alive, asked again every few seconds (one may start meanwhile); the answer
        // stays shown until the next asking
        if (performance.now() - checkedAt > QUIET_WORKER_MS) {
          checkedAt = performance.now();
          const list = await api("GET", "/v1/jobs?status=queued&limit=1");
          noWorker = list.workers_alive === 0;
        }
        text.textContent = noWorker ? "waiting: no job worker is running (start one with `bullscows worker`)"
          : "waiting for a worker";
      }
      await sleep(POLL_MS);
      job = await api("GET", `/v1/jobs/${encodeURIComponent(job.id)}`);
    }
    return api("GET", statsPath);
  },

  // What is proven about the chosen game, when its optimal strategies are not all known.
  notice(plans) {
    const info = game.info;
    const atlas = info && info.atlas;
    const standIn = plans.find((p) => p.standIn);
    const box = $("x-notice");
    const list = $("x-proven");
    list.replaceChildren();
    if (atlas && !atlas.total.exact) {
      $("x-notice-title").textContent = "Not solved yet: what is proven";
      for (const key of ["total", "worst_case", "total_within_worst_case", "total_depth", "worst_case_movers"]) {
        const v = atlas[key];
        const li = document.createElement("li");
        li.dataset.number = key;
        li.textContent = v.exact
          ? `${v.label}: ${v.value} (proven)`
          : `${v.label}: ${bracket(v)} (${v.upper === null ? `proven at least ${v.lower}; no upper bound yet`
            : "proven bounds; the value is not known yet"})`;
        list.append(li);
      }
      const best = atlas.best_known;
      $("x-notice-text").textContent = best
        ? `The best strategy known: ${bestKnownLabel(info)}. Its tree, played through every secret, needs `
          + `${best.total} guesses in all and at most ${best.worst_case} per secret: a real strategy, not a proven `
          + "optimum. Each upper bound above is a number of such a played-out tree; the optimal strategies are still "
          + "being searched (bullscows atlas run)."
        : "The optimal strategies are still being searched (bullscows atlas run).";
      box.hidden = false;
    } else if (info && info.record) {
      // a records game (Super Mastermind, five-digit Bulls-and-Cows): the best strategies published, ours, the bound
      const record = info.record;
      $("x-notice-title").textContent = `${record.name}: not solved by anyone`;
      const rows = record.published.map((p) => `Published: ${p.total !== null ? `${p.total} guesses in all` : `${p.average} on average`}`
        + `${p.worst_case ? `, worst case ${p.worst_case}` : ""} (${p.how}; ${p.source})`);
      if (record.best_known) {
        const b = record.best_known;
        rows.push(`This project's best tree: ${b.total} guesses in all (${b.average} on average), worst case `
          + `${b.worst_case} (${bestKnownLabel(info)}; every secret played, not a proven optimum; how it was made: see "How this is known" at the top)`);
      }
      if (record.lower_bound) {
        const lb = record.lower_bound;
        rows.push(`Proven: no strategy needs fewer than ${lb.value} guesses in all (`
          + (lb.finished === false ? "the parts an unfinished campaign has proven so far" : `${lb.depth} plies refined`)
          + `: ${lb.command})`);
      }
      for (const text of rows) list.append(Object.assign(document.createElement("li"), { textContent: text }));
      $("x-notice-text").textContent = record.best_known
        ? "Optimal play is out of reach here: the best tree known is shown instead. It is an upper bound of the "
          + "optimum, because it is a real strategy; the optimum lies between the proven bound and it."
        : "Optimal play is out of reach here.";
      box.hidden = false;
    } else if (standIn) {
      $("x-notice-title").textContent = "Optimal play is out of reach here";
      $("x-notice-text").textContent = `The exact search covers games of at most ${service.limits.exact_search_max_codes} `
        + `codes, and this one has ${info.codes}: ${standIn.label} is shown instead, a one-step strategy whose tree `
        + "is played through every secret but not proven optimal.";
      box.hidden = false;
    } else {
      box.hidden = true;
    }
  },

  summary(plans, stats) {
    const table = $("x-summary");
    const head = table.tHead.rows[0];
    head.replaceChildren(Object.assign(document.createElement("th"), { scope: "col", textContent: "Measure" }));
    for (const p of plans) {
      head.append(Object.assign(document.createElement("th"), { scope: "col", className: "num", textContent: p.label }));
    }
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const [key, label] of MEASURES) {
      const tr = document.createElement("tr");
      tr.dataset.measure = key;
      tr.append(Object.assign(document.createElement("th"), { scope: "row", textContent: label }));
      for (const s of stats) {
        let v = key === "movers" ? s.histogram[String(s.worst_case)] : s[key];
        if (key === "average") v = Number(v).toFixed(4);
        if (key === "optimal") v = v ? "yes" : "no";
        const td = Object.assign(document.createElement("td"), { className: "num" });
        td.append(key === "first_guess" ? codeElement(v) : String(v));
        tr.append(td);
      }
      body.append(tr);
    }
  },

  chart(plans, stats) {
    const box = $("x-chart");
    box.replaceChildren();
    const lengths = [...new Set(stats.flatMap((s) => Object.keys(s.histogram).map(Number)))].sort((x, y) => x - y);
    const top = Math.max(1, ...stats.flatMap((s) => Object.values(s.histogram)));
    const legend = document.createElement("p");
    legend.className = "legend";
    plans.forEach((p, i) => {
      const item = document.createElement("span");
      const sw = document.createElement("span");
      sw.className = `swatch bar ${i ? "b" : "a"}`;
      item.append(sw, p.label);
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
        bar.setAttribute("aria-label", `${plans[i].label}: ${count} secrets solved in ${k} guesses`);
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
    const prefix = response === null ? "" : `${words(...splitResponse(response))} → `;
    const expandable = node.children || node.more;
    if (!expandable) {
      const leaf = document.createElement("div");
      leaf.className = "leaf";
      leaf.dataset.response = response || "";
      leaf.append(`${prefix}guess ${turn}: `, codeElement(node.guess), node.hit ? " — solved" : "");
      return leaf;
    }
    const details = document.createElement("details");
    details.dataset.path = path.join(", ");
    const summary = document.createElement("summary");
    summary.append(`${prefix}guess ${turn}: `, codeElement(node.guess), ` (${node.candidates} candidates)`);
    details.append(summary);
    let children = node.children || null;
    const fill = () => {
      if (node.hit) {
        const win = document.createElement("div");
        win.className = "leaf";
        win.textContent = `${game.info ? words(game.info.positions, 0) : "all right"} → solved at guess ${turn}`;
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
