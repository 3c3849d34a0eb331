// Each seat's coins over the turns, as an inline SVG line chart drawn from GET …/timeline.
// Lines differ by colour and by dash pattern, and each ends with the seat's name. Pointing at a
// turn shows every seat's coins there, a click goes to it, and the same figures come as a table
// (`coinTable`), whose turn buttons go there too.

import { h, plural, s } from "./dom.js";
import { withRuleLinks } from "./rules.js";

const SEAT_COLOURS = ["#0072b2", "#b34700", "#007a5a", "#a0467e", "#7a6200", "#3b3b98", "#222222"];
const DASHES = [null, "7 3", "2 3", "9 3 2 3", "1 3", "12 4", "5 5"];
const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { left: 34, right: 96, top: 12, bottom: 30 };

/** The chart element; `position` marks the step shown, `onPick(position)` follows a click. */
export function coinChart(timeline, { position = null, onPick = null, over = false } = {}) {
  const points = timeline.points;
  if (!points.length) return h("p", { class: "muted" }, "No turns yet.");
  const known = points.flatMap((point) => point.coins.filter((coins) => coins !== null));
  if (!known.length) return h("p", { class: "muted" }, withRuleLinks("Coin counts are secret in this game (RULES §4.5)."));
  const top = Math.max(4, ...known);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index) => MARGIN.left + (points.length === 1 ? 0 : (index / (points.length - 1)) * plotWidth);
  const y = (coins) => MARGIN.top + plotHeight - (coins / top) * plotHeight;
  const step = Math.max(1, Math.ceil(top / 5));
  const yTicks = [];
  for (let coins = 0; coins <= top; coins += step) yTicks.push(coins);
  const turnEvery = Math.max(1, Math.ceil(points.length / 10));
  const xTicks = points.map((point, index) => ({ point, index })).filter(({ index }) => index % turnEvery === 0);

  const finals = timeline.seats.map((name, seat) => {
    const last = [...points].reverse().find((point) => point.coins[seat] !== null);
    return { name, seat, coins: last ? last.coins[seat] : null };
  });
  // End labels, nudged apart so that equal scores stay readable.
  const labels = finals.filter((f) => f.coins !== null).sort((a, b) => b.coins - a.coins || a.seat - b.seat);
  let previous = -Infinity;
  for (const label of labels) {
    label.y = Math.max(y(label.coins), previous + 13);
    previous = label.y;
  }

  let current = null;
  if (position !== null) {
    points.forEach((point, index) => {
      if (point.position <= position) current = index;
    });
  }

  const svg = s(
    "svg",
    {
      class: "coin-chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": `Coins by turn. ${finals.map((f) => `${f.name}: ${f.coins ?? "hidden"}`).join(", ")}.`,
    },
    yTicks.map((coins) =>
      s(
        "g",
        { class: "tick" },
        s("line", { x1: MARGIN.left, x2: MARGIN.left + plotWidth, y1: y(coins), y2: y(coins), class: "grid" }),
        s("text", { x: MARGIN.left - 6, y: y(coins) + 4, "text-anchor": "end" }, String(coins)),
      ),
    ),
    xTicks.map(({ point, index }) =>
      s("text", { x: x(index), y: HEIGHT - MARGIN.bottom + 16, "text-anchor": "middle", class: "tick" }, index === points.length - 1 ? (over ? "end" : "now") : String(point.turn)),
    ),
    s("text", { x: MARGIN.left + plotWidth / 2, y: HEIGHT - 2, "text-anchor": "middle", class: "axis-title" }, "turn"),
    current !== null
      ? s("line", { class: "now", x1: x(current), x2: x(current), y1: MARGIN.top, y2: MARGIN.top + plotHeight })
      : null,
    timeline.seats.map((name, seat) => {
      const path = points
        .map((point, index) => (point.coins[seat] === null ? null : `${x(index).toFixed(1)},${y(point.coins[seat]).toFixed(1)}`))
        .filter(Boolean)
        .join(" ");
      return s("polyline", {
        class: "line",
        "data-seat": seat,
        points: path,
        fill: "none",
        stroke: SEAT_COLOURS[seat % SEAT_COLOURS.length],
        "stroke-width": 2.5,
        "stroke-dasharray": DASHES[seat % DASHES.length],
      });
    }),
    labels.map((label) =>
      s(
        "text",
        { x: MARGIN.left + plotWidth + 6, y: label.y + 4, fill: SEAT_COLOURS[label.seat % SEAT_COLOURS.length], class: "end-label" },
        `${label.name} ${label.coins}`,
      ),
    ),
  );
  const pointText = (point, index) =>
    `${index === points.length - 1 && points.length > 1 ? (over ? "At the end" : "Now") : `Turn ${point.turn}`}: ${timeline.seats
      .map((name, seat) => `${name} ${point.coins[seat] ?? "hidden"}`)
      .join(", ")}`;
  const readout = h("p", { class: "chart-readout muted" }, current === null ? "" : pointText(points[current], current));
  const guide = s("line", { class: "hover-guide", x1: 0, x2: 0, y1: MARGIN.top, y2: MARGIN.top + plotHeight, visibility: "hidden" });
  svg.append(guide);
  // One column per turn: its title is the tooltip, pointing at it shows the coins below.
  const half = points.length === 1 ? plotWidth / 2 : plotWidth / (points.length - 1) / 2;
  points.forEach((point, index) => {
    const column = s(
      "rect",
      { class: "turn-column", x: x(index) - half, y: MARGIN.top, width: half * 2, height: plotHeight, "data-position": point.position },
      s("title", {}, `${pointText(point, index)}${onPick ? " (click to go there)" : ""}`),
    );
    column.addEventListener("mouseenter", () => {
      guide.setAttribute("x1", x(index));
      guide.setAttribute("x2", x(index));
      guide.setAttribute("visibility", "visible");
      readout.textContent = pointText(point, index);
    });
    if (onPick) column.addEventListener("click", () => onPick(point.position));
    svg.append(column);
  });
  svg.addEventListener("mouseleave", () => {
    guide.setAttribute("visibility", "hidden");
    readout.textContent = current === null ? "" : pointText(points[current], current);
  });
  const legend = h(
    "ul",
    { class: "legend" },
    timeline.seats.map((name, seat) =>
      h(
        "li",
        {},
        s(
          "svg",
          { width: 28, height: 10, "aria-hidden": "true" },
          s("line", { x1: 0, x2: 28, y1: 5, y2: 5, stroke: SEAT_COLOURS[seat % SEAT_COLOURS.length], "stroke-width": 3, "stroke-dasharray": DASHES[seat % DASHES.length] }),
        ),
        ` ${name}`,
      ),
    ),
  );
  return h("figure", { class: "chart" }, svg, readout, h("figcaption", {}, legend));
}

/** The chart's figures as a table: a row per turn, a column per seat; each turn's button goes to
 * its first step (`onPick`). */
export function coinTable(timeline, { position = null, onPick = null, over = false } = {}) {
  const points = timeline.points;
  if (!points.length) return null;
  const rows = points.map((point, index) => {
    const last = index === points.length - 1 && points.length > 1;
    const name = last ? (over ? "End" : "Now") : `Turn ${point.turn}`;
    const here = position !== null && point.position <= position && (points[index + 1]?.position ?? Infinity) > position;
    return h(
      "tr",
      { class: here ? "current" : null, "aria-current": here ? "step" : null },
      h("th", { scope: "row" }, onPick ? h("button", { type: "button", class: "link", "data-position": point.position, onclick: () => onPick(point.position) }, name) : name),
      timeline.seats.map((_, seat) => h("td", {}, point.coins[seat] === null ? "hidden" : String(point.coins[seat]))),
    );
  });
  return h(
    "details",
    { class: "coin-table", id: "coin-table" },
    h("summary", {}, "The coins as a table"),
    h(
      "div",
      { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Coins by turn, as a table" },
      h(
        "table",
        {},
        h("caption", { class: "visually-hidden" }, `Each seat's coins at the start of each turn (${plural(points.length, "row")})`),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Turn"), timeline.seats.map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, rows),
      ),
    ),
  );
}
