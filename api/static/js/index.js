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

async function start() {
  let games;
  try {
    ({ games } = await api("/api/games"));
  } catch (error) {
    fill(box, errorView(error));
    return;
  }
  if (!games.length) {
    fill(box, h("p", {}, "No games yet. ", h("a", { href: "/record" }, "Record one"), " or play one with `bohnanza play`."));
    return;
  }
  fill(
    box,
    h(
      "table",
      { class: "games" },
      h("thead", {}, h("tr", {}, ["Started", "Players", "Ruleset", "Status", ""].map((title) => h("th", { scope: "col" }, title)))),
      h(
        "tbody",
        {},
        games.map((game) =>
          h(
            "tr",
            { "data-game": game.game_id },
            h("td", {}, new Date(game.started_at).toLocaleString()),
            h("td", {}, game.seats.join(", ")),
            h("td", {}, `${game.ruleset} · ${game.mode}`),
            h(
              "td",
              {},
              game.status === "ended"
                ? `ended after ${game.turns} turns; won by ${game.winners.join(" and ")}`
                : `in progress, turn ${game.turns}`,
            ),
            h("td", { class: "links" }, links(game)),
          ),
        ),
      ),
    ),
  );
  document.querySelector("main").dataset.ready = "true";
}

start();
