// The table as a viewer sees it (the API's rendered view): piles, face-up cards, offers, and
// each seat's fields, trade area, hand and coins. Display only; the pages add their controls.

import { backs, beansText, card, cardBack, coinsFor, label, meterView } from "./beans.js";
import { h, plural } from "./dom.js";

/** Where the turn stands, in the rulebook's words as the API sends them: "Phase 2, trading". */
export function phaseText(view) {
  const text = view.phase_text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function names(view) {
  return view.seats.map((seat) => seat.name);
}

/** How a tie for most coins was broken, in the rulebook's words (RULES §10.7); a shared win
 * needs none (its verb says it). */
const TIE_BREAKS = {
  "most-hand-cards": "most hand cards",
  "seat-distance": "furthest clockwise from the start player",
};

/** " (tie broken by most hand cards)", or nothing when no tie was broken. */
export function tieBreakText(decidedBy) {
  return TIE_BREAKS[decidedBy] ? ` (tie broken by ${TIE_BREAKS[decidedBy]})` : "";
}

/** "Game over — Ana 12, Ben 9; Ana wins". */
function resultText(view) {
  const result = view.result;
  if (!result) return "";
  const who = names(view);
  const scores = result.scores.map((score, seat) => `${who[seat]} ${score}`).join(", ");
  const winners = result.winners.map((seat) => who[seat]).join(" and ");
  const how = tieBreakText(result.decided_by);
  return `Game over — ${scores}; ${winners} ${result.winners.length === 1 ? "wins" : "share the win"}${how}`;
}

/** "Turn 4 · Phase 2 · trade and donate · Dan is active". */
export function statusText(view) {
  if (view.phase === "ended") return resultText(view);
  const who = names(view);
  const turn = view.turn ? `Turn ${view.turn} · ` : "";
  return `${turn}${phaseText(view)} · ${who[view.active_seat]} is active`;
}

function fieldView(field, index, path) {
  const name = `Field ${index + 1}`;
  if (!field.bean) {
    return h(
      "div",
      { class: "field empty", "data-path": path },
      h("span", { class: "field-name" }, name),
      h("span", { class: "field-empty" }, "empty"),
    );
  }
  const pays = coinsFor(field.bean, field.count);
  return h(
    "div",
    { class: ["field", `bean-${field.bean}`], "data-path": path, "data-bean": field.bean, "data-count": field.count },
    h("span", { class: "field-name" }, name),
    h("span", { class: "field-bean" }, h("span", { class: "field-count" }, `${field.count}×`), " ", label(field.bean)),
    h("span", { class: "field-pays", "data-pays": pays, title: `a harvest now pays ${plural(pays, "coin")}` }, `harvest: ${plural(pays, "coin")}`),
    meterView(field.bean, field.count),
  );
}

function handView(seat, path, you) {
  if (seat.hand === null) {
    return h(
      "div",
      { class: "hand hidden-hand", "data-path": path, role: "group", "aria-label": `${seat.name}'s hand: ${plural(seat.hand_size, "card")}, face down` },
      h("span", { class: "zone-label" }, "Hand"),
      backs(seat.hand_size),
    );
  }
  return h(
    "div",
    { class: ["hand", "open-hand"], "data-path": path },
    h("span", { class: "zone-label" }, you ? "Your hand (front first)" : "Hand (front first)"),
    seat.hand.length
      ? h("ol", { class: "cards" }, seat.hand.map((bean, position) => h("li", {}, card(bean, { note: position === 0 ? "front" : String(position + 1) }))))
      : h("span", { class: "muted" }, "no cards"),
  );
}

function seatView(view, seat, you) {
  const index = seat.seat;
  const winner = view.result?.winners.includes(index);
  const badges = [
    index === view.active_seat && view.phase !== "ended" ? h("span", { class: "badge active-badge" }, "active") : null,
    index === view.start_seat ? h("span", { class: "badge" }, "start player") : null,
    you ? h("span", { class: "badge you-badge" }, "you") : null,
    winner ? h("span", { class: "badge winner-badge" }, "winner") : null,
  ];
  const coins = seat.coins === null ? "coins hidden" : plural(seat.coins, "coin");
  return h(
    "article",
    {
      class: ["seat", index === view.active_seat && view.phase !== "ended" && "active", you && "you", winner && "winner"],
      "data-seat": index,
      "data-path": `/seats/${index}`,
      "aria-label": `${seat.name}, seat ${index + 1}`,
    },
    h(
      "header",
      {},
      h("h3", {}, seat.name),
      badges,
      h("span", { class: "coins", "data-path": `/seats/${index}/coins`, "data-coins": seat.coins ?? "" }, coins),
    ),
    h(
      "div",
      { class: "fields" },
      seat.fields.map((field, f) => fieldView(field, f, `/seats/${index}/fields/${f}`)),
    ),
    seat.trade_area.length
      ? h(
          "div",
          { class: "trade-area", "data-path": `/seats/${index}/trade_area` },
          h("span", { class: "zone-label" }, "Trade area (to plant)"),
          h("span", { class: "cards" }, seat.trade_area.map((bean) => card(bean))),
        )
      : null,
    handView(seat, `/seats/${index}/hand`, you),
  );
}

function offerView(view, offer) {
  const who = names(view);
  const gives = offer.gives.length ? beansText(offer.gives) : "nothing (a request)";
  const wants = offer.wants.length ? beansText(offer.wants) : "nothing (a gift)";
  return h(
    "li",
    { class: "offer", "data-offer": offer.id },
    h("strong", {}, `#${offer.id} ${who[offer.proposer]} → ${who[offer.to]}`),
    ": gives ",
    h("span", { class: "cards" }, offer.gives.map((bean) => card(bean))),
    offer.gives.length ? "" : gives,
    " for ",
    h("span", { class: "cards" }, offer.wants.map((bean) => card(bean))),
    offer.wants.length ? "" : wants,
  );
}

function pilesView(view) {
  const draw = view.draw_pile;
  const discard = view.discard_pile;
  return h(
    "div",
    { class: "piles" },
    h(
      "figure",
      { class: "pile", "data-path": "/draw_pile" },
      cardBack(),
      h(
        "figcaption",
        {},
        `Draw pile: ${draw.size}`,
        h("br"),
        h("span", { class: "muted" }, `exhausted ${view.exhaustions} of ${view.game_ends_on_exhaustion}`),
        draw.cards?.length ? h("span", { class: "pile-order" }, h("br"), `top first: ${draw.cards.slice(0, 6).map(label).join(", ")}${draw.cards.length > 6 ? " …" : ""}`) : null,
      ),
    ),
    h(
      "figure",
      { class: "pile", "data-path": "/discard_pile" },
      discard.top ? card(discard.top) : h("span", { class: "card none" }, "—"),
      h(
        "figcaption",
        {},
        `Discard pile: ${discard.size}`,
        discard.cards?.length ? h("span", { class: "muted" }, h("br"), beansText(discard.cards)) : null,
      ),
    ),
    h(
      "div",
      { class: "zone revealed", "data-path": "/revealed" },
      h("span", { class: "zone-label" }, "Face up"),
      view.revealed.length ? h("span", { class: "cards" }, view.revealed.map((bean) => card(bean))) : h("span", { class: "muted" }, "none"),
    ),
    view.duel_offer.length
      ? h(
          "div",
          { class: "zone duel-offer", "data-path": "/duel_offer" },
          h("span", { class: "zone-label" }, "Offered to the other player"),
          h("span", { class: "cards" }, view.duel_offer.map((bean) => card(bean))),
        )
      : null,
  );
}

/** Mark the parts of the table a step changed (JSON Pointers into the view). */
function markChanges(root, changes) {
  const marked = root.querySelectorAll("[data-path]");
  const byPath = new Map([...marked].map((node) => [node.dataset.path, node]));
  for (const change of changes) {
    let path = change.path.replace(/\/hand_size$/, "/hand");
    while (path && !byPath.has(path)) path = path.slice(0, path.lastIndexOf("/"));
    byPath.get(path)?.classList.add("changed");
  }
}

/** The table element for a rendered view; `changes` marks what the last step changed, and
 * `viewerFirst` seats the viewing seat first, the others clockwise after it. */
export function renderTable(view, { changes = [], viewerFirst = false } = {}) {
  const viewerSeat = view.viewer.kind === "seat" ? view.viewer.seat : null;
  const n = view.seats.length;
  const seats = viewerFirst && viewerSeat !== null ? view.seats.map((_, i) => view.seats[(viewerSeat + i) % n]) : view.seats;
  const root = h(
    "section",
    { class: "table", "data-phase": view.phase, "aria-label": "The table" },
    h(
      "div",
      { class: "board" },
      h("p", { class: "status", "data-path": "/phase" }, statusText(view)),
      pilesView(view),
      view.offers.length
        ? h("div", { class: "offers", "data-path": "/offers" }, h("span", { class: "zone-label" }, "Open offers"), h("ul", {}, view.offers.map((offer) => offerView(view, offer))))
        : null,
    ),
    h("div", { class: "seats" }, seats.map((seat) => seatView(view, seat, seat.seat === viewerSeat))),
  );
  markChanges(root, changes);
  return root;
}
