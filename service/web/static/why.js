// Why a guess is good: how it splits the candidates left (answer → candidates), the expected and the
// largest size left, and what optimal play is worth with it and at best, when the service knows it.
// Asked from POST /v1/explain, the same call a bot makes; shown under the guess (prefix "c") or the
// hint (prefix "p") it explains.

import { $, api } from "./api.js";
import { codeElement, responseElement } from "./codes.js";
import { guarded } from "./errors.js";
import { depth, game } from "./game.js";

// The question a mode's strategy answers, as /v1/explain asks it: the fewest secrets needing the last guess
// within the mode's depth limit for the worst-case strategy, else the fewest guesses in all (what the one-step
// strategies are measured against too).
function question(prefix) {
  const asked = depth.body(prefix);
  if (asked.strategy !== "optimal-kmovers") return {};
  return { criterion: "kmovers", ...(asked.max_guesses ? { max_guesses: asked.max_guesses } : {}) };
}

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

export const why = {
  asked: { c: 0, p: 0 },

  close(prefix) {
    this.asked[prefix] += 1;
    $(`${prefix}-why-box`).hidden = true;
    $(`${prefix}-why-box`).replaceChildren();
    $(`${prefix}-why`).setAttribute("aria-expanded", "false");
  },

  async toggle(prefix, history, guess) {
    const box = $(`${prefix}-why-box`);
    const button = $(`${prefix}-why`);
    if (!box.hidden) {
      this.close(prefix);
      return;
    }
    if (!guess) return;
    const seq = ++this.asked[prefix];
    button.setAttribute("aria-busy", "true");
    const got = await guarded(
      () => api("POST", "/v1/explain", { game: game.body(), history, guess, ...question(prefix) }), button);
    button.removeAttribute("aria-busy");
    if (!got || seq !== this.asked[prefix]) return;
    this.render(box, got);
    box.hidden = false;
    button.setAttribute("aria-expanded", "true");
  },

  render(box, x) {
    const n = x.candidates;
    const head = el("h3", {}, "Why ", codeElement(x.guess), "?");
    const split = el("p", { className: "why-split" },
      `It splits the ${n} candidate${n === 1 ? "" : "s"} left into ${x.part_count} group${x.part_count === 1 ? "" : "s"} by the answer it gets: `
      + `at worst ${x.largest} ${x.largest === 1 ? "is" : "are"} left, ${x.expected_size.toFixed(1)} on average. `
      + (x.is_candidate ? "It may be the secret itself." : "It cannot be the secret, but it tells the others apart."));
    const parts = [head, split, this.optimal(x)];
    const table = el("table", { className: "parts" });
    table.append(el("caption", {}, "Answer → candidates left"));
    table.append(el("thead", {}, el("tr", {}, el("th", { scope: "col", textContent: "Answer" }),
      el("th", { scope: "col", className: "num", textContent: "Candidates left" }))));
    const body = el("tbody");
    for (const part of x.parts) {
      const bar = el("span", { className: "part-bar" });
      bar.style.width = `calc(var(--part-bar) * ${Math.max(0.03, part.candidates / x.largest)})`; // the largest: all
      bar.setAttribute("aria-hidden", "true");
      const tr = el("tr", {}, el("td", {}, responseElement(part.bulls, part.cows)),
        el("td", { className: "num" }, el("span", { className: "part-count", textContent: String(part.candidates) }), bar));
      tr.dataset.response = part.response;
      body.append(tr);
    }
    table.append(body);
    parts.push(table);
    box.replaceChildren(...parts);
  },

  // What optimal play is worth, as the mode's strategy counts it: guesses in all (every guess of the game
  // counted), or the secrets needing the last guess within the depth limit; with this guess and at best, when
  // the service knows it within the request; else why not.
  optimal(x) {
    const o = x.optimal;
    const p = el("p", { className: "why-optimal" });
    if (!o || !o.position || !o.guess) {
      p.textContent = `Optimal values: not known here${o && o.note ? ` (${o.note})` : ""}.`;
      return p;
    }
    const best = o.position;
    const mine = o.guess;
    if (o.criterion === "kmovers") {
      const movers = (v) => `${v} secret${v === 1 ? "" : "s"} needing all ${o.max_guesses} guesses`;
      p.append(`With it, optimal play leaves ${movers(mine.value)} (the fewest at the worst case). `);
      if (mine.is_best) {
        p.append("No guess does better: it is an optimal move.");
      } else {
        p.append(`The best guess here leaves ${movers(best.value)}: `, codeElement(best.best_guess), ".");
      }
      return p;
    }
    const each = (v) => (v / x.candidates).toFixed(3);
    p.append(`With it, optimal play needs ${mine.value} guesses in all for the ${x.candidates} secrets left `
      + `(${each(mine.value)} each, the guesses so far included). `);
    if (mine.is_best) {
      p.append("No guess does better: it is an optimal move.");
    } else {
      p.append(`The best guess here needs ${best.value} (${each(best.value)} each), ${mine.value - best.value} fewer: `,
        codeElement(best.best_guess), ".");
    }
    return p;
  },
};
