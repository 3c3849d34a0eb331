// Planting by touch: tap a card that may be planted (the front card of your hand, a card of your
// trade area, a face-up card in the duel), then one of the fields it may go to. The cards and
// fields become buttons on the table the page drew; the list of moves stays as it was.

import { h } from "./dom.js";
import { label } from "./beans.js";

const FRONT = "front";

/** Where each plantable card may go: {key: [field, …]}; the front hand card's key is "front",
 * a named card's its bean. */
export function plantTargets(commands) {
  const targets = new Map();
  for (const command of commands) {
    if (command.type !== "plant") continue;
    const key = command.bean ?? FRONT;
    targets.set(key, [...(targets.get(key) ?? []), command.field]);
  }
  return targets;
}

function asButton(card, attributes, onclick) {
  const button = h("button", { type: "button", class: card.getAttribute("class"), ...attributes, onclick }, ...card.childNodes);
  button.classList.add("tappable");
  for (const [name, value] of Object.entries(card.dataset)) button.dataset[name] = value;
  card.replaceWith(button);
  return button;
}

/** Make the seat's plantable cards and, once one is chosen, its fields tappable in `root` (a
 * table from renderTable). `choice.key` holds the chosen card across redraws; `plant(command)`
 * sends the plant. */
export function enableTapToPlant(root, { view, seat, commands, choice, plant, redraw }) {
  const targets = plantTargets(commands);
  if (!targets.has(choice.key)) choice.key = null;
  if (!targets.size) return;
  const mine = root.querySelector(`.seat[data-seat="${seat}"]`);
  const front = mine?.querySelector(".open-hand li:first-child .card");
  const cards = [];
  if (front && targets.has(FRONT)) cards.push([front, FRONT, view.seats[seat].hand[0]]);
  const named = [...(mine?.querySelectorAll(".trade-area .card") ?? []), ...root.querySelectorAll(".zone.revealed .card, .zone.duel-offer .card")];
  for (const card of named) {
    if (targets.has(card.dataset.bean)) cards.push([card, card.dataset.bean, card.dataset.bean]);
  }
  for (const [card, key, bean] of cards) {
    const chosen = choice.key === key;
    const button = asButton(card, { "aria-pressed": String(chosen) }, () => {
      choice.key = chosen ? null : key;
      redraw();
    });
    button.append(h("span", { class: "visually-hidden" }, chosen ? " (chosen: now a field to plant it in)" : ` (choose ${label(bean)}, then a field)`));
  }
  if (choice.key === null || !mine) return;
  const chosen = choice.key;
  const bean = chosen === FRONT ? view.seats[seat].hand[0] : chosen;
  for (const field of targets.get(chosen)) {
    const box = mine.querySelector(`.field[data-path="/seats/${seat}/fields/${field}"]`);
    const command = commands.find((c) => c.type === "plant" && c.field === field && (c.bean ?? FRONT) === chosen);
    if (!box || !command) continue;
    box.classList.add("plant-target");
    const here = () => {
      choice.key = null;
      plant(command);
    };
    box.append(h("button", { type: "button", class: "plant-here primary", "data-field": field, onclick: here }, `Plant ${label(bean)} here`));
  }
}
