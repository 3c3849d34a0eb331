// "The game in numbers" on the replay page: each seat's offers, trades, gifts, cards and
// harvests, who traded with whom and when the lead changed (GET /api/games/<id>/stats), as the
// page's viewer may read them. Loaded when the section is opened, and again when the viewer
// changes or the game moves on while it is open.

import { api, errorView } from "./api.js";
import { label } from "./beans.js";
import { coalesced, fill, h, plural, s } from "./dom.js";

const COLUMNS = [
  ["Offers made", (s) => `${s.offers_made} (${s.offers_accepted} taken, ${s.withdrawn} withdrawn)`],
  ["Offers received", (s) => `${s.offers_received} (${s.accepted} accepted, ${s.declined} declined)`],
  ["Trades", (s) => String(s.trades)],
  ["Gifts given / got", (s) => `${s.donations_given} / ${s.donations_received}`],
  ["Cards given / got", (s) => `${total(s.cards_given)} / ${total(s.cards_got)}`],
  ["Harvests", (s) => String(s.harvests)],
  ["Coins earned", (s) => (s.coins_earned === null ? "hidden" : String(s.coins_earned))],
  ["Coins per harvest", (s) => (s.coins_per_harvest === null ? "–" : String(s.coins_per_harvest))],
  ["Third field", (s) => (s.third_field_turn === null ? "–" : `turn ${s.third_field_turn}`)],
];

function total(cards) {
  return Object.values(cards).reduce((sum, count) => sum + count, 0);
}

function scrolling(labelText, table) {
  return h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": labelText }, table);
}

function seatsTable(stats) {
  return scrolling(
    "Each seat's numbers",
    h(
      "table",
      { id: "numbers-seats" },
      h("caption", { class: "visually-hidden" }, "Each seat's offers, trades, gifts, cards and harvests"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), COLUMNS.map(([name]) => h("th", { scope: "col" }, name)))),
      h(
        "tbody",
        {},
        stats.seats.map((seat) => h("tr", { "data-seat": seat.seat }, h("th", { scope: "row" }, seat.name), COLUMNS.map(([, cell]) => h("td", {}, cell(seat))))),
      ),
    ),
  );
}

function matrixTable(stats) {
  const names = stats.seats.map((seat) => seat.name);
  return scrolling(
    "Who traded with whom",
    h(
      "table",
      { id: "numbers-matrix" },
      h("caption", {}, "Who traded with whom (trades and gifts accepted)"),
      h("thead", {}, h("tr", {}, h("td", {}), names.map((name) => h("th", { scope: "col" }, name)))),
      h(
        "tbody",
        {},
        stats.traded_with.map((row, seat) => h("tr", {}, h("th", { scope: "row" }, names[seat]), row.map((count, other) => h("td", {}, other === seat ? "–" : String(count))))),
      ),
    ),
  );
}

function wasted(stats) {
  const lines = stats.seats.flatMap((seat) =>
    seat.wasted_harvests
      .filter((harvest) => harvest.wasted < harvest.count)
      .map((harvest) => `${seat.name} harvested ${harvest.count} ${label(harvest.bean)} for ${harvest.coins === null ? "some" : plural(harvest.coins, "coin")} (${harvest.wasted} past the tier)`),
  );
  if (!lines.length) return null;
  return h("details", { class: "more" }, h("summary", {}, `Harvests past their tier (${lines.length})`), h("ul", { id: "numbers-wasted" }, lines.map((line) => h("li", {}, line))));
}

function leads(stats) {
  if (stats.lead_changes === null) return h("p", { class: "hint" }, "The lead is not shown while some seats' coins are hidden.");
  const names = stats.seats.map((seat) => seat.name);
  const changes = stats.lead_changes.map((change) => `${change.turn < 0 ? "the end" : `turn ${change.turn}`}: ${change.leaders.map((seat) => names[seat]).join(" and ")} (${plural(change.coins, "coin")})`);
  return h("p", { id: "numbers-lead" }, changes.length ? `The lead changed hands ${plural(changes.length, "time")} — ${changes.join("; ")}.` : "Nobody has scored yet.");
}

/** A small chart: each seat's offers made, the part of them taken, and the offers it accepted
 *  (the same figures as the table, which is its text alternative). */
function offersChart(stats) {
  const most = Math.max(1, ...stats.seats.map((seat) => Math.max(seat.offers_made, seat.offers_received)));
  const width = 300;
  const row = 30;
  const left = 70;
  const scale = (count) => (count / most) * (width - left - 10);
  const svg = s(
    "svg",
    { viewBox: `0 0 ${width} ${row * stats.seats.length + 6}`, class: "offers-chart", "aria-hidden": "true", focusable: "false" },
    stats.seats.map((seat, index) => {
      const y = index * row + 4;
      return s(
        "g",
        {},
        s("text", { x: 0, y: y + 15, class: "label" }, seat.name),
        s("rect", { x: left, y, width: scale(seat.offers_made), height: 11, class: "made" }),
        s("rect", { x: left, y, width: scale(seat.offers_accepted), height: 11, class: "taken" }),
        s("rect", { x: left, y: y + 13, width: scale(seat.accepted), height: 9, class: "accepted" }),
      );
    }),
  );
  const summary = stats.seats.map((seat) => `${seat.name}: ${seat.offers_made} offers, ${seat.offers_accepted} taken; accepted ${seat.accepted} of ${seat.offers_received}`).join("; ");
  return h(
    "figure",
    { class: "chart offers", id: "numbers-chart" },
    h("span", { class: "visually-hidden" }, summary),
    svg,
    h("figcaption", {}, h("span", { class: "key made" }), " offers made ", h("span", { class: "key taken" }), " of them taken ", h("span", { class: "key accepted" }), " offers accepted"),
  );
}

/** The section; `ask()` gives the request options (the viewer's token and perspective). */
export class NumbersPanel {
  constructor({ base, ask }) {
    this.base = base;
    this.ask = ask;
    this.body = h("div", { id: "numbers-body" });
    this.element = h("details", { class: "numbers", id: "numbers", ontoggle: () => this.element.open && this.load() }, h("summary", {}, "The game in numbers"), this.body);
    this.later = coalesced(() => this.load());
  }

  /** Load again if open: at once (another viewer), or within a second (the game moved on: one
   *  load for a burst of steps). */
  refresh({ soon = false } = {}) {
    if (!this.element.open) return;
    if (soon) this.later();
    else this.load();
  }

  async load() {
    try {
      const stats = await api(`${this.base}/stats`, this.ask());
      fill(this.body, offersChart(stats), seatsTable(stats), matrixTable(stats), leads(stats), wasted(stats));
      this.element.dataset.loaded = "true";
    } catch (error) {
      fill(this.body, errorView(error));
    }
  }
}
