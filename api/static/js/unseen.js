// A seat's own page in a tabletop game with unknown hands: nobody (the service included) has seen
// its hand, so the seat may note it for its own eyes (`note-hand`: the note shows only in its own
// view and names no card for the game), turn up its reveal, and name a hand card's bean when the
// table sees it (a plant, an offer). The bean pickers offer only the beans a card may still be:
// those of its draw pile nobody has seen (the view's `unseen`). The cards off the draw pile are
// offered as the recorder's page offers them (`nextPileBeans`), the discards after the pile's end.

import { card, counts, label } from "./beans.js";
import { h, plural } from "./dom.js";

/**
 * The beans the next card turned up or drawn may be, of the game's `beans` (in their order), once
 * the cards `named` so far in the entry (in order) are taken: the draw pile's while it lasts (with
 * unknown hands, the beans of it nobody has seen), then the discard pile's, which becomes the new
 * draw pile when the pile runs out in the middle of the entry (RULES §10.9). Every bean where the
 * view does not show what the pile or the discards hold.
 */
export function nextPileBeans(view, named, beans) {
  const size = view.draw_pile.size;
  const past = named.length >= size;
  let held = null;
  if (past) held = view.discard_pile.cards && counts(view.discard_pile.cards);
  else if (view.hands === "unknown") held = view.unseen?.length ? new Map(Object.entries(view.unseen.at(-1).beans)) : null;
  else held = view.draw_pile.cards && counts(view.draw_pile.cards);
  if (!held) return beans;
  for (const bean of named.slice(past ? size : 0)) held.set(bean, (held.get(bean) ?? 0) - 1);
  return beans.filter((bean) => (held.get(bean) ?? 0) > 0);
}

/** The beans a hand card from draw pile `pile` may be. */
export function possibleBeans(view, pile) {
  const found = view.unseen?.find((item) => item.pile === pile);
  return Object.keys(found?.beans ?? {});
}

/** A hand card in words: its bean, the seat's own note of it, or "card N" for an unseen one. */
export function handCardText(view, seat, position) {
  const bean = view.seats[seat].hand?.[position];
  return bean ? label(bean) : `card ${position + 1}`;
}

/** The note form: each card of the hand, front first, with the beans it may be. */
export function notePanel(view, seat, draft, { redraw, send }) {
  const me = view.seats[seat];
  const piles = me.hand_piles ?? [];
  if (!piles.length) return null;
  if (draft.cards.length !== piles.length) draft.cards = piles.map((_, i) => me.hand?.[i] ?? null);
  const row = (position) =>
    h(
      "div",
      { class: "note-card", "data-position": position },
      h("span", { class: "hint" }, `card ${position + 1}`),
      h(
        "select",
        {
          "aria-label": `your card ${position + 1} (front first)`,
          "data-key": `note-${position}`,
          onchange: (event) => {
            draft.cards[position] = event.target.value || null;
            redraw();
          },
        },
        h("option", { value: "" }, "not noted"),
        possibleBeans(view, piles[position]).map((bean) => h("option", { value: bean, selected: draft.cards[position] === bean }, label(bean))),
      ),
    );
  return h(
    "details",
    { class: "note-hand", id: "note-hand", open: draft.open },
    h("summary", { onclick: () => (draft.open = !draft.open) }, "Note my hand (only you see it)"),
    h("p", { class: "hint" }, "Nobody has seen your hand, the service neither. Note its cards here to see them on your table: the note names no card for the game and no one else sees it."),
    h("div", { class: "note-cards" }, piles.map((_, position) => row(position))),
    h(
      "button",
      { type: "button", class: "primary", id: "save-note", "data-key": "save-note", onclick: () => send({ type: "note-hand", cards: draft.cards.map((bean) => bean ?? "?") }) },
      "Save my note",
    ),
  );
}

/** A reveal the seat enters itself (unknown hands): the cards turned up, in order. */
export function revealPanel(view, chance, draft, { beans: gameBeans, redraw, send }) {
  const beans = nextPileBeans(view, draft.reveal, gameBeans);
  const owed = chance.count;
  return h(
    "section",
    { class: "reveal-cards", id: "reveal-cards", "aria-labelledby": "reveal-title" },
    h("h3", { id: "reveal-title" }, `Turn up ${plural(owed, "card")}: tap them in order`),
    h("div", { class: "buffer" }, draft.reveal.map((bean) => card(bean))),
    h(
      "div",
      { class: "palette", role: "group", "aria-label": "Cards turned up" },
      beans.map((bean) =>
        h(
          "button",
          {
            type: "button",
            class: ["card", `bean-${bean}`],
            "data-bean": bean,
            "data-key": `reveal-${bean}`,
            onclick: () => {
              draft.reveal.push(bean);
              if (draft.reveal.length >= owed) {
                const cards = draft.reveal;
                draft.reveal = [];
                send({ type: "reveal", cards });
              } else redraw();
            },
          },
          label(bean),
        ),
      ),
    ),
    draft.reveal.length ? h("button", { type: "button", onclick: () => (draft.reveal.pop(), redraw()) }, "Take back a card") : null,
  );
}

/** Plant buttons of a game with unknown hands, the noted bean's first: the others (the front
 *  card may be any bean its pile hides) behind "another bean". */
export function groupPlants(view, seat, plants, button) {
  const noted = view.seats[seat].hand?.[0] ?? null;
  const first = plants.filter((command) => command.bean === noted);
  const others = plants.filter((command) => command.bean !== noted);
  if (!first.length) {
    return h("details", { class: "plant-beans", open: true }, h("summary", {}, "Plant your front card: its bean and field"), h("div", { class: "legal-group" }, others.map(button)));
  }
  return [
    h("div", { class: "legal-group" }, first.map(button)),
    h("details", { class: "plant-beans" }, h("summary", {}, "Another bean (your note was wrong)"), h("div", { class: "legal-group" }, others.map(button))),
  ];
}
