// The replay's step list, as a move list: steps grouped by turn, and within a turn by phase;
// a run of offers and refusals folds into one line that opens on demand (and by itself when the
// step shown is in it). Each step's item has room for marks (`stepMarks`), so that a page module
// can flag steps ("corrected", say) without touching the list.

import { h, plural } from "./dom.js";

const OFFER_TALK = new Set(["TradeOffered", "TradeDeclined", "TradeWithdrawn"]);
const RUN_MIN = 4;
const PHASES = {
  deal: "The deal",
  plant: "Phase 1 · planting",
  trade: "Phase 2 · trading",
  "plant-traded": "Phase 3 · planting the traded cards",
  draw: "Phase 4 · drawing",
  ended: "The end",
};
const DUEL_PHASES = {
  ...PHASES,
  "resolve-offer": "Step 1 · the offered cards",
  plant: "Step 2 · planting",
  "plant-drawn": "Step 3 · the drawn cards",
  draw: "Step 4 · drawing",
};

/** Functions (step) → a mark (text or node) or null, shown after each step's line. */
export const stepMarks = [];

/** Split one phase's steps into plain steps and runs of offer talk long enough to fold. */
function pieces(steps) {
  const out = [];
  let run = [];
  const flush = () => {
    if (run.length >= RUN_MIN) out.push({ run });
    else out.push(...run.map((step) => ({ step })));
    run = [];
  };
  for (const step of steps) {
    if (OFFER_TALK.has(step.kind)) {
      run.push(step);
      continue;
    }
    flush();
    out.push({ step });
  }
  flush();
  return out;
}

function runText(run) {
  const offers = run.filter((step) => step.kind === "TradeOffered").length;
  const answers = run.length - offers;
  return `${plural(offers, "offer")} and ${plural(answers, "answer")}, no trade`;
}

export class StepList {
  /** `names`: the seats; `linkFor(position)`: a step's address; `onPick(position)`. */
  constructor({ names, duel = false, linkFor, onPick }) {
    this.names = names;
    this.phases = duel ? DUEL_PHASES : PHASES;
    this.linkFor = linkFor;
    this.onPick = onPick;
    this.steps = [];
    this.position = null;
    this.element = h("div", { id: "step-list", class: "step-list", tabindex: 0, role: "region", "aria-label": "Steps by turn" });
    this.opened = new Set(); // runs the person opened (by first position), kept across redraws
    this.noted = new Map(); // step → its notes, marked again on every redraw
  }

  /** Show these steps (all of them). */
  fill(steps) {
    this.steps = [...steps];
    this.element.replaceChildren(...this._turns(this.steps).map((turn) => this._turn(turn)));
    this.notes(this.noted);
    if (this.position) this.current(this.position);
  }

  /** Add steps that came after the last one (a game followed live). */
  append(steps) {
    if (!steps.length) return;
    const firstTurn = steps[0].turn;
    this.steps.push(...steps);
    for (const group of [...this.element.querySelectorAll(".turn-group")]) {
      if (Number(group.dataset.turn) >= firstTurn) group.remove();
    }
    const redrawn = this._turns(this.steps.filter((step) => step.turn >= firstTurn));
    this.element.append(...redrawn.map((turn) => this._turn(turn)));
    this.notes(this.noted);
    if (this.position) this.current(this.position);
  }

  _turns(steps) {
    const turns = [];
    for (const step of steps) {
      if (turns.at(-1)?.turn !== step.turn) turns.push({ turn: step.turn, steps: [] });
      turns.at(-1).steps.push(step);
    }
    return turns;
  }

  _turn({ turn, steps }) {
    const phases = [];
    for (const step of steps) {
      if (phases.at(-1)?.phase !== step.phase) phases.push({ phase: step.phase, steps: [] });
      phases.at(-1).steps.push(step);
    }
    const actor = steps.find((step) => step.actor !== null)?.actor;
    const title = turn === 0 ? "Setting up" : `Turn ${turn}${actor === undefined ? "" : ` · ${this.names[actor]}`}`;
    return h(
      "div",
      { class: "turn-group", "data-turn": turn },
      h("h3", { class: "turn-head" }, title),
      phases.map(({ phase, steps: inPhase }) =>
        h(
          "div",
          { class: "phase-group", "data-phase": phase },
          h("h4", { class: "phase-head" }, this.phases[phase] ?? phase),
          this._pieces(inPhase),
        ),
      ),
    );
  }

  _pieces(steps) {
    const out = [];
    let plain = [];
    const flush = () => {
      if (plain.length) out.push(h("ol", { class: "steps" }, plain));
      plain = [];
    };
    for (const piece of pieces(steps)) {
      if (piece.step) {
        plain.push(this._item(piece.step));
        continue;
      }
      flush();
      const first = piece.run[0].position;
      const run = h(
        "details",
        { class: "run", "data-first": first, open: this.opened.has(first) },
        h("summary", {}, runText(piece.run)),
        h("ol", { class: "steps" }, piece.run.map((step) => this._item(step))),
      );
      run.addEventListener("toggle", () => (run.open ? this.opened.add(first) : this.opened.delete(first)));
      out.push(run);
    }
    flush();
    return out;
  }

  _item(step) {
    const marks = stepMarks.map((mark) => mark(step)).filter((mark) => mark !== null && mark !== undefined);
    return h(
      "li",
      { id: `step-${step.position}`, "data-position": step.position, "data-kind": step.kind },
      h(
        "a",
        {
          href: this.linkFor(step.position),
          tabindex: -1,
          onclick: (event) => {
            event.preventDefault();
            this.onPick(step.position);
          },
        },
        h("span", { class: "pos" }, String(step.position)),
        " ",
        h("span", { class: "text" }, step.summary.replace(/^T\d+ /, "")),
        h("span", { class: "marks" }, marks),
        h("span", { class: "glyph" }),
      ),
    );
  }

  /** Mark step `position` as the one shown (opening its run), keeping it in view. */
  current(position, { focus = false } = {}) {
    this.position = position;
    for (const item of this.element.querySelectorAll("li.current")) {
      item.classList.remove("current");
      const anchor = item.querySelector("a");
      anchor.setAttribute("tabindex", "-1");
      anchor.removeAttribute("aria-current");
    }
    const item = this.element.querySelector(`#step-${position}`);
    if (!item) return;
    item.classList.add("current");
    const run = item.closest("details.run");
    if (run && !run.open) run.open = true;
    const anchor = item.querySelector("a");
    anchor.setAttribute("tabindex", "0");
    anchor.setAttribute("aria-current", "step");
    const box = this.element;
    const top = item.offsetTop; // the list is the item's offset parent (position: relative)
    if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = top - box.clientHeight / 2;
    }
    if (focus) anchor.focus({ preventScroll: true });
  }

  /** Point every step's link at `linkFor` (another perspective). */
  relink(linkFor) {
    this.linkFor = linkFor;
    for (const item of this.element.querySelectorAll("li[data-position]")) {
      item.querySelector("a").href = linkFor(Number(item.dataset.position));
    }
  }

  /** Show each noted step's marks (`noted`: step → notes). */
  notes(noted) {
    this.noted = noted;
    for (const item of this.element.querySelectorAll("li.noted")) {
      item.classList.remove("noted");
      item.querySelector(".glyph").textContent = "";
    }
    for (const [step, notes] of noted) {
      const item = this.element.querySelector(`#step-${step}`);
      if (!item) continue;
      item.classList.add("noted");
      item.querySelector(".glyph").textContent = ` ${notes.map((note) => note.glyph ?? "✎").join(" ")}`;
    }
  }
}
