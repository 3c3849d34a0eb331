// The stored games, newest first, with links to replay them and, where this browser holds a
// token, to play a seat or go on recording.

import { api, errorView } from "./api.js";
import { fill, h } from "./dom.js";
import { storedTokens } from "./tokens.js";

const box = document.getElementById("games");

function links(game) {
  const tokens = storedTokens(game.game_id);
  const held = Object.keys(tokens);
  const out = [h("a", { href: `/games/${game.game_id}/replay` }, "Replay")];
  if (game.status !== "ended") {
    if (held.includes("host") && game.mode === "tabletop") {
      out.push(h("a", { href: `/record#game=${game.game_id}` }, "Record"));
    }
    for (const key of held.filter((k) => k.startsWith("seat-"))) {
      const seat = Number(key.slice(5));
      out.push(h("a", { href: `/play/${game.game_id}#seat=${seat}` }, `Play ${game.seats[seat]}`));
    }
    if (!held.some((k) => k.startsWith("seat-"))) {
      out.push(h("a", { href: `/play/${game.game_id}` }, "Play (with a token)"));
    }
  }
  return out;
}

function row(game) {
  return h(
    "tr",
    { "data-game": game.game_id },
    h("td", {}, new Date(game.started_at).toLocaleString()),
    h("td", {}, game.seats.join(", ")),
    h(
      "td",
      {},
      `${game.ruleset} · ${game.mode}${game.sandbox ? " · sandbox (a fork)" : ""}`,
      game.duplicate_of
        ? [" · a copy of ", h("a", { href: `/games/${game.duplicate_of}/replay` }, `game ${game.duplicate_of.slice(0, 8)}`)]
        : null,
    ),
    h(
      "td",
      {},
      game.status === "ended"
        ? `ended after ${game.turns} turns; won by ${game.winners.join(" and ")}`
        : `in progress, turn ${game.turns}`,
    ),
    h("td", { class: "links" }, links(game)),
  );
}

/** The next page's rows go into `rows`; the button goes once the last page is in. */
function moreButton(rows, page) {
  let next = page.next_offset;
  const shown = () => `Showing ${rows.children.length} of ${page.total} games.`;
  const status = h("span", { class: "muted" }, shown());
  const button = h("button", { type: "button", class: "more" }, "More games");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const more = await api("/api/games", { query: { offset: next } });
      rows.append(...more.games.map(row));
      next = more.next_offset;
      page.total = more.total;
    } catch (error) {
      status.replaceChildren(errorView(error));
      button.disabled = false;
      return;
    }
    status.textContent = shown();
    button.disabled = false;
    if (next === null) button.remove();
  });
  return h("p", { class: "more" }, status, " ", next === null ? null : button);
}

async function start() {
  let page;
  try {
    page = await api("/api/games");
  } catch (error) {
    fill(box, errorView(error));
    return;
  }
  if (!page.games.length) {
    fill(box, h("p", {}, "No games yet. ", h("a", { href: "/record" }, "Record one"), " or play one with `bohnanza play`."));
    return;
  }
  const rows = h("tbody", {}, page.games.map(row));
  fill(
    box,
    h(
      "table",
      { class: "games" },
      h("thead", {}, h("tr", {}, ["Started", "Players", "Ruleset", "Status", ""].map((title) => h("th", { scope: "col" }, title)))),
      rows,
    ),
    page.next_offset === null ? null : moreButton(rows, page),
  );
  document.querySelector("main").dataset.ready = "true";
}

start();
