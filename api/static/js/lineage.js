// A game's what-if forks, on its replay page: for a fork, the game it came from (a link to the
// step it was forked at) and both outcomes side by side; for a game that was forked, a link to
// each fork. What `GET …/forks` and `GET …/comparison` answer, as the public sees it.

import { api } from "./api.js";
import { coalesced, fill, h, plural } from "./dom.js";

/** Forks listed by name before "and N more" (a game forked often would fill the page). */
const LISTED = 12;

function outcome(side, names) {
  if (side.scores === null) {
    return side.status === "ended" ? "coins not shown" : "coins hidden until the end";
  }
  const winners = side.winners ?? [];
  return side.scores.map((coins, seat) => `${names[seat]} ${coins}${winners.includes(seat) ? " (won)" : ""}`).join(" · ");
}

function sameOutcome(comparison) {
  if (comparison.same_outcome === null) {
    return comparison.fork.status === "ended" ? "not known yet: the game it came from is still being played" : "not known yet: the fork is still being played";
  }
  return comparison.same_outcome ? "the same winners" : "different winners";
}

export class Lineage {
  /** `base`: the game's API path; `names`: its seats' names (a fork has its parent's). */
  constructor({ base, names }) {
    this.base = base;
    this.names = names;
    this.parent = null;
    this.forks = [];
    this.later = coalesced(() => this.show());
    this.element = h("section", { class: "lineage", id: "lineage", "aria-label": "What-if forks", hidden: true });
  }

  async load() {
    let links;
    try {
      links = await api(`${this.base}/forks`);
    } catch {
      return; // the page reads as before: no line about forks
    }
    this.parent = links.parent;
    this.forks = links.forks;
    await this.show();
  }

  /** Ask for the comparison again: at once, or within a second (a fork being played moved on:
   *  one load for a burst of steps). A game that is no fork has none. */
  refresh({ soon = false } = {}) {
    if (!this.parent) return;
    if (soon) this.later();
    else this.show();
  }

  async show() {
    const parts = [];
    if (this.parent) {
      const { game_id: parent, step } = this.parent;
      parts.push(
        h(
          "p",
          { id: "forked-from" },
          "A what-if fork of ",
          h("a", { href: `/games/${parent}/replay?step=${step}` }, "the game it came from"),
          `, at its step ${step}.`,
        ),
      );
      try {
        const comparison = await api(`${this.base}/comparison`);
        parts.push(
          h(
            "dl",
            { class: "outcomes", id: "outcomes" },
            h("dt", {}, comparison.fork.status === "ended" ? "This fork" : "This fork so far"),
            h("dd", {}, outcome(comparison.fork, this.names)),
            h("dt", {}, "The game it came from"),
            h("dd", {}, outcome(comparison.parent, this.names)),
            h("dt", {}, "Outcome"),
            h("dd", {}, sameOutcome(comparison)),
          ),
        );
      } catch {
        // The link above still stands.
      }
    }
    if (this.forks.length) {
      const listed = this.forks.slice(0, LISTED);
      const more = this.forks.length - listed.length;
      parts.push(
        h(
          "p",
          { id: "forks" },
          `${plural(this.forks.length, "what-if fork")} of this game: `,
          listed.map((fork, i) => [i ? " · " : "", h("a", { href: `/games/${fork.game_id}/replay` }, `from step ${fork.step}`)]),
          more > 0 ? ` and ${more} more (GET ${this.base}/forks lists them all)` : ".",
        ),
      );
    }
    this.element.hidden = parts.length === 0;
    fill(this.element, parts);
  }
}
