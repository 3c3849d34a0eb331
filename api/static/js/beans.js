// The bean types and beanometers, from /beans.json (generated from the rules' own table).

import { h, plural } from "./dom.js";

export const UNKNOWN = "?";
const BEANS = new Map();

/** Load the bean table once; every other function here needs it. */
export async function loadBeans() {
  if (BEANS.size) return BEANS;
  const response = await fetch("/beans.json");
  const data = await response.json();
  for (const bean of data.beans) BEANS.set(bean.id, bean);
  return BEANS;
}

export function label(id) {
  return BEANS.get(id)?.label ?? id;
}

/** Coins a harvest of `count` beans of this type pays (RULES §1.2): the highest level reached. */
export function coinsFor(id, count) {
  const meter = BEANS.get(id)?.meter ?? [];
  let coins = 0;
  meter.forEach((needed, index) => {
    if (needed !== null && needed <= count) coins = index + 1;
  });
  return coins;
}

/** How many of each item `items` holds (a Map, in first-seen order). */
export function counts(items) {
  const counted = new Map();
  for (const item of items) counted.set(item, (counted.get(item) ?? 0) + 1);
  return counted;
}

/** "2 Blue, 1 Chili" in first-seen order; "no cards". */
export function beansText(cards) {
  if (!cards?.length) return "no cards";
  return [...counts(cards)]
    .map(([bean, n]) => (bean === UNKNOWN ? plural(n, "unknown card") : `${n} ${label(bean)}`))
    .join(", ");
}

/** A face-up card: its colour and, always, its name. */
export function card(id, { note = null, tag = "span", attributes = {} } = {}) {
  if (id === UNKNOWN || id === null) return cardBack();
  return h(
    tag,
    { class: ["card", `bean-${id}`], "data-bean": id, ...attributes },
    h("span", { class: "card-label" }, label(id)),
    note ? h("span", { class: "card-note" }, note) : null,
  );
}

/** A card seen from the back (a coin, as on the real cards). */
export function cardBack() {
  return h("span", { class: "card back", title: "a card (face down)" }, h("span", { class: "visually-hidden" }, "card back"));
}

/** Face-down cards: a few backs and the count. */
export function backs(count, { shown = 6 } = {}) {
  return h(
    "span",
    { class: "backs", "data-count": count },
    Array.from({ length: Math.min(count, shown) }, () => cardBack()),
    h("span", { class: "count" }, plural(count, "card")),
  );
}

/** The beanometer as a row of levels: "4→1 6→2 8→3 10→4", the reached ones marked. */
export function meterView(id, count) {
  const meter = BEANS.get(id)?.meter ?? [];
  return h(
    "span",
    { class: "meter", title: "beanometer: cards needed for 1, 2, 3 and 4 coins" },
    meter.map((needed, index) =>
      needed === null
        ? null
        : h("span", { class: ["level", needed <= count && "reached"] }, `${needed}→${index + 1}`),
    ),
  );
}
