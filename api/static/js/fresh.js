// New cards, marked: the cards that came into a seat's hand or trade area with the last change
// (drawn to the back of the hand, received in a trade), until the seat acts again.

import { counts } from "./beans.js";

/** How many cards at the back of `after` are new beside `before` (cards leave a hand from
 * anywhere, but come in at the back). */
export function newAtTheBack(before, after) {
  if (!before || !after) return 0;
  const left = counts(before);
  let kept = 0;
  for (const card of after) {
    if (left.get(card)) {
      left.set(card, left.get(card) - 1);
      kept += 1;
    }
  }
  return Math.max(0, after.length - kept);
}

/** Mark the last `count` cards of the zone's card list in `root` as new (class and words). */
export function markNew(zone, count) {
  if (!zone || !count) return;
  const cards = [...zone.querySelectorAll(".card")].slice(-count);
  for (const card of cards) {
    card.classList.add("new-card");
    const words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = " (new)";
    card.append(words);
  }
}
