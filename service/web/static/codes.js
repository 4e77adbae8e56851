// How a code and a response look on the page.  Games with repeats allowed are played as Mastermind:
// each symbol is a coloured peg that also shows its symbol (the key the player types) and is named by
// its colour for screen readers, so that no one needs to tell colours apart; a response is black and
// white key pegs.  Games of all-different symbols are played as Bulls-and-Cows: digits, bulls and cows.
// The family comes from the API (GET /v1/games/{game} says `family`).

// Ten colours, each with a text colour of at least 4.5:1 contrast on it (WCAG AA), in the order the
// symbols of the alphabet take them; games of more symbols are shown as characters.
export const COLOURS = [
  ["red", "#c62828", "#ffffff"],
  ["blue", "#1565c0", "#ffffff"],
  ["green", "#2e7d32", "#ffffff"],
  ["yellow", "#fdd835", "#1b1b1b"],
  ["white", "#ffffff", "#1b1b1b"],
  ["black", "#212121", "#ffffff"],
  ["orange", "#ef6c00", "#1b1b1b"],
  ["purple", "#6a1b9a", "#ffffff"],
  ["pink", "#f48fb1", "#1b1b1b"],
  ["brown", "#6d4c41", "#ffffff"],
];

// The game the page shows (set by game.js when a game is loaded): family, alphabet, positions.
export const look = { family: "bulls-cows", alphabet: "0123456789", positions: 4 };

export function setLook(info) {
  look.family = info.family;
  look.alphabet = info.alphabet;
  look.positions = info.positions;
}

export function pegs() {
  return look.family === "mastermind" && look.alphabet.length <= COLOURS.length;
}

function colourOf(symbol) {
  const i = look.alphabet.indexOf(symbol);
  return i >= 0 && i < COLOURS.length ? COLOURS[i] : null;
}

// The colour names of a code, for screen readers ("red red blue green").
function spoken(code) {
  if (!pegs()) return code.split("").join(" ");
  return [...code].map((s) => (colourOf(s) || [s])[0]).join(" ");
}

// A code as an element: coloured pegs (each with its symbol) for Mastermind, digits otherwise.  Its
// text is the code as typed, so that copying it or reading it in a test gives the code.
export function codeElement(code) {
  const el = document.createElement("span");
  el.className = "code";
  el.dataset.code = code;
  if (!pegs()) {
    el.textContent = code;
    return el;
  }
  el.classList.add("pegs");
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", `${code}: ${spoken(code)}`);
  for (const s of code) {
    const peg = document.createElement("span");
    peg.className = "peg";
    const c = colourOf(s);
    if (c) {
      peg.style.background = c[1];
      peg.style.color = c[2];
      peg.title = c[0];
    }
    peg.textContent = s;
    el.append(peg);
  }
  return el;
}

export function showCode(el, code) {
  el.replaceChildren(code ? codeElement(code) : "");
}

// A response in words: "1 bull, 2 cows" or "1 black, 2 white".
export function words(bulls, cows) {
  if (look.family === "mastermind") return `${bulls} black, ${cows} white`;
  return `${bulls} bull${bulls === 1 ? "" : "s"}, ${cows} cow${cows === 1 ? "" : "s"}`;
}

// The two numbers' names, for labels and table headers.
export function responseNames() {
  return look.family === "mastermind"
    ? { hit: "Black", near: "White", hitHelp: "right colour, right place", nearHelp: "right colour, wrong place", things: "colours" }
    : { hit: "Bulls", near: "Cows", hitHelp: "right symbol, right place", nearHelp: "right symbol, wrong place", things: "symbols" };
}

// A response as an element: key pegs and words for Mastermind, words for Bulls-and-Cows.
export function responseElement(bulls, cows) {
  const el = document.createElement("span");
  el.className = "response";
  el.dataset.response = `${bulls}.${cows}`;
  if (look.family === "mastermind") {
    const keys = document.createElement("span");
    keys.className = "keys";
    keys.setAttribute("aria-hidden", "true");
    // two rows, as on a Mastermind board: the same width for every response of the game, so words line up
    keys.style.gridTemplateColumns = `repeat(${Math.ceil(look.positions / 2)}, .7em)`;
    for (let i = 0; i < bulls + cows; i++) {
      keys.append(Object.assign(document.createElement("span"), { className: `key ${i < bulls ? "black" : "white"}` }));
    }
    el.append(keys, " ");
  }
  el.append(words(bulls, cows));
  return el;
}

// "1.2" → [1, 2]
export function splitResponse(text) {
  return String(text).split(".").map(Number);
}
