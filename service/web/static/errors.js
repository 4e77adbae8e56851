// Errors next to the control that caused them.

import { $, ApiError } from "./api.js";

// A failure is shown next to the control that caused it: in a message right after the control's
// group (its row, fieldset or form), tied to the control with aria-describedby and aria-invalid, and
// announced.  One message at a time; any later success clears it.  A problem with the game itself
// (invalid, too large) belongs to the game's controls, whichever action ran into it.
export const GAME_PROBLEMS = new Set(["invalid-game", "game-too-large"]);

export function gameControl() {
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

export function showError(err, control) {
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

export function clearError() {
  for (const slot of document.querySelectorAll(".field-error")) slot.hidden = true;
  for (const c of document.querySelectorAll("[aria-invalid], [aria-describedby$='-error']")) {
    c.removeAttribute("aria-invalid");
    c.removeAttribute("aria-describedby");
  }
}

// Run an action, showing (not throwing) its error next to `control` (or next to `control(err)`, when
// which control is to blame depends on the error); undefined when it failed.
export async function guarded(action, control) {
  try {
    const out = await action();
    return out;
  } catch (err) {
    showError(err, typeof control === "function" ? control(err) : control);
    return undefined;
  }
}
