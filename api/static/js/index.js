// The stored games, newest first, a page at a time, with their scores and filters (status,
// player, ruleset) kept in the address (?status=&player=&ruleset=&page=); links to replay each
// and, where this browser holds a token, to play a seat or go on recording. Below them, the
// players over ended games (of the ruleset chosen): wins, scores, harvests and trading.

import { api, errorView } from "./api.js";
import { fill, h, plural } from "./dom.js";
import { tieBreakText } from "./table.js";
import { storedTokens } from "./tokens.js";

const PAGE_SIZE = 20;
const STATUSES = [
  ["", "any"],
  ["in-progress", "being played"],
  ["ended", "ended"],
];
const box = document.getElementById("games");
const filters = document.getElementById("filters");

function wanted() {
  const params = new URLSearchParams(window.location.search);
  return {
    status: params.get("status") ?? "",
    player: params.get("player") ?? "",
    ruleset: params.get("ruleset") ?? "",
    page: Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1),
  };
}

function address(query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value && !(name === "page" && value === 1)) params.set(name, value);
  }
  const search = params.toString();
  return search ? `/?${search}` : "/";
}

function links(game) {
  const tokens = storedTokens(game.game_id);
  const held = Object.keys(tokens);
  const out = [h("a", { href: `/games/${game.game_id}/replay` }, game.status === "ended" ? "Replay" : "Watch")];
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

/** "Ana 12 · Ben 9 · Cleo 7", the winners in bold; the seats alone while coins are secret. */
function scores(game) {
  return h(
    "ul",
    { class: "scores" },
    game.seats.map((name, seat) => {
      const coins = game.scores[seat];
      const won = game.winners.includes(name);
      return h("li", { class: won ? "winner" : null }, won ? h("strong", {}, name) : name, coins === null || coins === undefined ? "" : ` ${coins}`, won ? h("span", { class: "visually-hidden" }, " (winner)") : null);
    }),
  );
}

function statusOf(game) {
  if (game.status !== "ended") return `being played, turn ${game.turns}${game.scores.some((coins) => coins === null) ? " (coins secret)" : ""}`;
  return `ended after ${plural(game.turns, "turn")}; won by ${game.winners.join(" and ")}${tieBreakText(game.decided_by)}`;
}

function row(game) {
  return h(
    "tr",
    { "data-game": game.game_id },
    h("td", {}, new Date(game.started_at).toLocaleString()),
    h("td", {}, scores(game)),
    h(
      "td",
      {},
      `${game.ruleset} · ${game.mode}${game.sandbox ? " · sandbox (a fork)" : ""}`,
      game.duplicate_of ? [" · a copy of ", h("a", { href: `/games/${game.duplicate_of}/replay` }, `game ${game.duplicate_of.slice(-8)}`)] : null,
    ),
    h("td", {}, statusOf(game)),
    h("td", { class: "links" }, links(game)),
  );
}

async function filterForm(query) {
  let presets = [];
  try {
    presets = (await api("/api/rulesets")).presets.map((preset) => preset.id);
  } catch {
    presets = [];
  }
  const status = h("select", { id: "filter-status", name: "status" }, STATUSES.map(([value, name]) => h("option", { value, selected: value === query.status }, name)));
  const player = h("input", { id: "filter-player", name: "player", value: query.player, maxlength: 40, autocomplete: "off" });
  const ruleset = h(
    "select",
    { id: "filter-ruleset", name: "ruleset" },
    h("option", { value: "" }, "any"),
    presets.map((preset) => h("option", { value: preset, selected: preset === query.ruleset }, preset)),
  );
  const form = h(
    "form",
    { class: "filters row", role: "search", "aria-label": "Filter the games" },
    h("p", { class: "field-row" }, h("label", { for: "filter-status" }, "Status"), status),
    h("p", { class: "field-row" }, h("label", { for: "filter-player" }, "Player"), player),
    h("p", { class: "field-row" }, h("label", { for: "filter-ruleset" }, "Ruleset"), ruleset),
    h("p", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "apply-filters" }, "Show"), h("a", { href: "/", class: "button", id: "clear-filters" }, "Clear")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    window.location.assign(address({ status: status.value, player: player.value.trim(), ruleset: ruleset.value, page: 1 }));
  });
  fill(filters, form);
}

function pager(query, page) {
  const pages = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
  const first = (query.page - 1) * PAGE_SIZE + 1;
  const last = first + page.games.length - 1;
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages of games" },
    query.page > 1 ? h("a", { class: "button", rel: "prev", href: address({ ...query, page: query.page - 1 }) }, "‹ Newer") : null,
    h("span", { id: "page-status" }, `Games ${first}–${last} of ${page.total} · page ${query.page} of ${pages}`),
    page.next_offset !== null ? h("a", { class: "button", rel: "next", href: address({ ...query, page: query.page + 1 }) }, "Older ›") : null,
  );
}

const STANDINGS_SHOWN = 20;
const percent = (value) => (value === null ? "–" : `${Math.round(value * 100)}%`);
const decimal = (value) => (value === null ? "–" : value.toFixed(2));

/** The top of the leaderboard over ended games (for the ruleset chosen, if any): wins first. */
function standingsTable(board, ruleset) {
  const shown = board.standings;
  if (!shown.length) return h("p", { id: "no-standings" }, ruleset ? `No ended ${ruleset} games yet.` : "No ended games yet.");
  const columns = [
    ["Games", (s) => String(s.games)],
    ["Wins", (s) => String(s.wins)],
    ["Win rate", (s) => percent(s.win_rate)],
    ["Average score", (s) => s.average_score.toFixed(1)],
    ["Coins per harvest", (s) => decimal(s.coins_per_harvest)],
    ["Offers accepted", (s) => percent(s.acceptance_rate)],
    ["Gifts given / got", (s) => `${s.donations} / ${s.donations_received}`],
  ];
  return [
    h(
      "div",
      { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Players over ended games" },
      h(
        "table",
        { class: "standings", id: "standings-table" },
        h("caption", { class: "visually-hidden" }, `Players over ended ${ruleset ? `${ruleset} ` : ""}games, most wins first`),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), columns.map(([name]) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, shown.map((standing) => h("tr", {}, h("th", { scope: "row" }, h("a", { href: address({ player: standing.name }) }, standing.name)), columns.map(([, cell]) => h("td", {}, cell(standing)))))),
      ),
    ),
    board.next_offset !== null ? h("p", { class: "hint", id: "more-standings" }, `The best ${shown.length} players; the whole board: bohnanza leaderboard, or GET /api/leaderboard a page at a time.`) : null,
  ];
}

async function showStandings(query) {
  const standings = document.getElementById("standings");
  try {
    const board = await api("/api/leaderboard", { query: { ruleset: query.ruleset || null, limit: STANDINGS_SHOWN } });
    fill(standings, standingsTable(board, query.ruleset));
  } catch (error) {
    fill(standings, errorView(error));
  }
}

async function start() {
  const query = wanted();
  const asking = { limit: PAGE_SIZE, offset: (query.page - 1) * PAGE_SIZE, status: query.status || null, player: query.player || null, ruleset: query.ruleset || null };
  const [page] = await Promise.all([api("/api/games", { query: asking }).catch((error) => error), filterForm(query), showStandings(query)]);
  if (page instanceof Error) {
    fill(box, errorView(page));
  } else if (!page.games.length) {
    const filtered = query.status || query.player || query.ruleset;
    fill(
      box,
      h(
        "p",
        { id: "no-games" },
        filtered ? ["No games match these filters. ", h("a", { href: "/" }, "Show every game")] : ["No games yet. ", h("a", { href: "/record" }, "Record one"), ", ", h("a", { href: "/import" }, "import a record"), " or play one with `bohnanza play`."],
      ),
    );
  } else {
    fill(
      box,
      h(
        "table",
        { class: "games" },
        h("caption", { class: "visually-hidden" }, "The games, newest first"),
        h("thead", {}, h("tr", {}, ["Started", "Players and scores", "Ruleset", "Status", "Open"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, page.games.map(row)),
      ),
      pager(query, page),
    );
  }
  document.querySelector("main").dataset.ready = "true";
}

start();
