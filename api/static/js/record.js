// The tabletop recorder: create a game, then enter what happens at the table as it happens.
// The host's token acts for every seat; the engine refuses an illegal entry (shown at once with
// its RULES section) and the table (the host sees every hand) is redrawn after each entry.
// URL: /record (a new game) or /record#game=<id> (go on recording; the token is in storage).

import { api, errorView } from "./api.js";
import { beansText, card, label, loadBeans } from "./beans.js";
import { fill, h, plural, say, typing } from "./dom.js";
import { withRuleLinks } from "./rules.js";
import { phaseText, renderTable, statusText } from "./table.js";
import { adoptToken, fragment, gamesWithTokens, storedTokens, takeFragmentToken } from "./tokens.js";

const app = document.getElementById("app");
const main = document.querySelector("main");
const BEAN_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-"];
const PLANT_KEYS = ["q", "w", "e"];
const HARVEST_KEYS = ["a", "s", "d"];
const POLL_MS = 2000;

const state = {
  gameId: null,
  token: null,
  view: null,
  ruleset: null,
  seat: 0,
  activeSeen: null,
  buffer: [],
  deal: null,
  dealSeat: 0,
  plantBean: null,
  offer: null,
  log: [],
  seen: 0,
  message: null,
  busy: false,
};
const ui = {};

// --- creating a game ----------------------------------------------------------------------------

async function setup() {
  document.getElementById("title").textContent = "Record a tabletop game";
  const { presets, options } = await api("/api/rulesets");
  const preset = h(
    "select",
    { id: "ruleset", name: "ruleset" },
    presets.map((p) => h("option", { value: p.id }, `${p.id} (${p.player_counts[0]}–${p.player_counts.at(-1)} players)`)),
  );
  const presetText = h("p", { class: "hint", id: "ruleset-text" });
  const showPreset = () => {
    presetText.textContent = presets.find((p) => p.id === preset.value).description;
  };
  preset.addEventListener("change", showPreset);
  showPreset();
  const seats = h("input", {
    id: "seats",
    name: "seats",
    required: true,
    placeholder: "Ana, Ben, Cleo",
    autocomplete: "off",
    "aria-describedby": "seats-hint",
  });
  const start = h("select", { id: "start-seat", name: "start_seat" });
  const names = () => seats.value.split(",").map((name) => name.trim()).filter(Boolean);
  const showSeats = () => {
    const chosen = start.value;
    fill(start, names().map((name, seat) => h("option", { value: seat, selected: String(seat) === chosen }, name)));
    for (const row of document.querySelectorAll(".option[data-duel-only]")) row.hidden = names().length !== 2;
  };
  seats.addEventListener("input", showSeats);
  const optionRows = options.map((option) =>
    h(
      "div",
      { class: "option", "data-option": option.name, "data-duel-only": option.duel_only || null, hidden: option.duel_only },
      h("label", { for: `option-${option.name}` }, option.name.replaceAll("_", " ")),
      option.is_list
        ? h("input", { id: `option-${option.name}`, placeholder: `default (e.g. ${option.values.join(",")})` })
        : h(
            "select",
            { id: `option-${option.name}` },
            h("option", { value: "" }, "ruleset default"),
            option.values.map((value) => h("option", { value: JSON.stringify(value) }, String(value))),
          ),
      h("p", { class: "hint" }, withRuleLinks(`${option.description} (RULES §${option.section})`)),
    ),
  );
  const message = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "setup", id: "setup" },
    h(
      "fieldset",
      {},
      h("legend", {}, "The table"),
      h("p", { class: "field-row" }, h("label", { for: "seats" }, "Players, clockwise"), seats, h("span", { class: "hint", id: "seats-hint" }, "Names separated by commas: 2 to 7 players.")),
      h("p", { class: "field-row" }, h("label", { for: "start-seat" }, "Start player"), start),
      h("p", { class: "field-row" }, h("label", { for: "ruleset" }, "Ruleset"), preset, presetText),
    ),
    h("details", {}, h("summary", {}, "House rules and options"), h("fieldset", {}, h("legend", {}, "Options"), optionRows)),
    h("p", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "create" }, "Create the game")),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = {};
    for (const option of options) {
      const input = document.getElementById(`option-${option.name}`);
      if (input.closest(".option").hidden || !input.value.trim()) continue;
      chosen[option.name] = option.is_list ? input.value.split(",").map((v) => v.trim()) : JSON.parse(input.value);
    }
    const body = { mode: "tabletop", ruleset: preset.value, options: chosen, seats: names(), start_seat: Number(start.value || 0) };
    try {
      const created = await api("/api/games", { method: "POST", body });
      window.localStorage.setItem(
        `bohnanza.tokens.${created.game_id}`,
        JSON.stringify({ host: created.host_token }),
      );
      window.localStorage.setItem(`bohnanza.seat-links.${created.game_id}`, JSON.stringify(created.seats));
      window.location.hash = `game=${created.game_id}`;
    } catch (error) {
      fill(message, errorView(error));
    }
  });
  const recordings = Object.entries(gamesWithTokens()).filter(([, keys]) => keys.includes("host"));
  fill(
    app,
    form,
    recordings.length
      ? h(
          "section",
          { class: "panel setup" },
          h("h2", {}, "Go on recording"),
          h("ul", {}, recordings.map(([gameId]) => h("li", {}, h("a", { href: `/record#game=${gameId}` }, `Game ${gameId.slice(0, 8)}`)))),
        )
      : null,
  );
  main.dataset.ready = "true";
  seats.focus();
}

// --- recording ----------------------------------------------------------------------------------

async function open(gameId) {
  state.gameId = gameId;
  const token = takeFragmentToken();
  if (token) {
    try {
      await adoptToken(gameId, token);
    } catch (error) {
      fill(app, errorView(error));
      return;
    }
  }
  state.token = storedTokens(gameId).host ?? null;
  if (!state.token) {
    askForToken(gameId);
    return;
  }
  try {
    const [view, first] = await Promise.all([
      api(`/api/games/${gameId}/view`, { token: state.token }),
      api(`/api/games/${gameId}/events`, { token: state.token, query: { after: 0, limit: 1 } }),
    ]);
    if (view.viewer.kind !== "host") throw new Error("This token is a seat's; recording needs the host's token.");
    state.ruleset = first.items[0].event.ruleset;
    state.view = view;
    state.seen = Math.max(0, view.version - 12);
    await readLog();
  } catch (error) {
    fill(app, errorView(error));
    return;
  }
  document.getElementById("title").textContent = `Recording: ${state.view.seats.map((seat) => seat.name).join(", ")}`;
  layout();
  adjust();
  render();
  document.addEventListener("keydown", onKey);
  window.setInterval(poll, POLL_MS);
  main.dataset.ready = "true";
}

function askForToken(gameId) {
  const input = h("input", { id: "host-token", type: "password", autocomplete: "off", required: true });
  const message = h("div");
  const form = h(
    "form",
    { class: "setup panel" },
    h("p", {}, "This browser does not hold the host's token for this game."),
    h("p", { class: "field-row" }, h("label", { for: "host-token" }, "Host token"), input),
    h("button", { type: "submit", class: "primary" }, "Go on recording"),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const viewer = await adoptToken(gameId, input.value.trim());
      if (viewer.kind !== "host") throw new Error("This is a seat's token; recording needs the host's.");
      open(gameId);
    } catch (error) {
      fill(message, errorView(error));
    }
  });
  fill(app, form);
  main.dataset.ready = "true";
}

function layout() {
  ui.message = h("div", { id: "entry-message", "aria-live": "assertive" });
  ui.entry = h("div", { id: "entry" });
  ui.table = h("div", { id: "table" });
  ui.log = h("ol", { class: "log", id: "log", "aria-label": "Recent entries" });
  const links = h("div", { id: "links" });
  fill(
    app,
    h(
      "div",
      { class: "two-columns" },
      h(
        "div",
        { class: "record-main" },
        ui.table,
        h("section", { class: "panel" }, h("h2", {}, "Last entries"), ui.log),
        links,
      ),
      h("section", { class: "panel entry", "aria-labelledby": "entry-title" }, h("h2", { id: "entry-title" }, "Enter what happens"), ui.message, ui.entry),
    ),
  );
  fillLinks(links);
}

function fillLinks(box) {
  const seatLinks = JSON.parse(window.localStorage.getItem(`bohnanza.seat-links.${state.gameId}`) ?? "[]");
  const shown = h("code", { id: "host-token-text", hidden: true }, state.token);
  const origin = window.location.origin;
  fill(
    box,
    h(
      "details",
      { class: "panel" },
      h("summary", {}, "Tokens and links"),
      h(
        "p",
        { class: "token-box" },
        "Host token (acts for every seat; keep it private): ",
        shown,
        h("button", { type: "button", onclick: () => (shown.hidden = !shown.hidden) }, "Show / hide"),
      ),
      h("p", {}, h("a", { href: `/games/${state.gameId}/replay?perspective=host` }, "Replay this game (as the host)")),
      h("p", {}, "Resume on another device: ", h("code", {}, `${origin}/record#game=${state.gameId}&token=…`), " (with the host token after token=)"),
      seatLinks.length
        ? [
            h("p", {}, "Each player's live table (send each link to that player only):"),
            h("ul", {}, seatLinks.map((seat) => h("li", {}, h("a", { href: `/play/${state.gameId}#token=${seat.token}` }, `${seat.name}'s table`)))),
          ]
        : null,
    ),
  );
}

async function readLog() {
  for (;;) {
    const page = await api(`/api/games/${state.gameId}/events`, { token: state.token, query: { after: state.seen, limit: 200 } });
    for (const item of page.items) state.log.push({ position: item.position, text: item.summary });
    state.seen = Math.max(state.seen, ...page.items.map((item) => item.position));
    if (page.next_after === null) break;
  }
  state.log = state.log.slice(-40);
}

async function poll() {
  if (state.busy || document.hidden) return;
  try {
    const page = await api(`/api/games/${state.gameId}/events`, { token: state.token, query: { after: state.seen, limit: 1 } });
    if (!page.items.length) return;
    state.view = await api(`/api/games/${state.gameId}/view`, { token: state.token });
    await readLog();
    adjust();
    render();
  } catch {
    // A missed poll is caught up by the next one.
  }
}

// --- state after each change --------------------------------------------------------------------

function seatsFromStart() {
  const n = state.view.players;
  return Array.from({ length: n }, (_, i) => (state.view.start_seat + i) % n);
}

function dealSize(seat) {
  const n = state.view.players;
  return state.ruleset.deal[(seat - state.view.start_seat + n) % n];
}

function tradeAreaSeat() {
  const seats = state.view.seats;
  const order = seatsFromStart().map((_, i) => (state.view.active_seat + i) % seats.length);
  return order.find((seat) => seats[seat].trade_area.length) ?? state.view.active_seat;
}

/** Choose sensible defaults after the table changed: the acting seat, the plant source, the deal. */
function adjust() {
  const view = state.view;
  if (view.phase === "deal" && !state.deal) {
    state.deal = view.seats.map(() => []);
    state.dealSeat = view.start_seat;
  }
  if (view.phase !== "deal") state.deal = null;
  const turnKey = `${view.turn}/${view.active_seat}/${view.phase}`;
  if (turnKey !== state.activeSeen) {
    state.activeSeen = turnKey;
    state.seat = view.phase === "plant-traded" ? tradeAreaSeat() : view.active_seat;
    state.buffer = [];
    state.offer = null;
  }
  if (view.phase === "plant-traded" && !view.seats[state.seat].trade_area.length) state.seat = tradeAreaSeat();
  const sources = plantSources();
  if (!sources.includes(state.plantBean)) state.plantBean = sources[0] ?? null;
  if (view.phase === "trade" && !state.offer) resetOffer();
}

function resetOffer() {
  const view = state.view;
  const fallback = state.seat === view.active_seat ? (view.active_seat + 1) % view.players : view.active_seat;
  state.offer = { to: offerRange()?.to[0] ?? fallback, hand: [], faceUp: [], area: [], wants: [] };
}

/** What the acting seat may offer now, from the host's legal commands: to whom, and whether
 *  face-up and trade-area cards may go with the hand cards (null if the server did not say). */
function offerRange() {
  return state.view.legal?.offers?.find((range) => range.seat === state.seat) ?? null;
}

/** The beans the acting seat may plant from, other than its front hand card. */
function plantSources() {
  const view = state.view;
  const seat = view.seats[state.seat];
  switch (view.phase) {
    case "plant-traded":
      return [...new Set(seat.trade_area)];
    case "resolve-offer":
      return [...new Set(view.duel_offer)];
    case "plant-drawn":
      return [...new Set(view.revealed)];
    default:
      return [];
  }
}

/** What the bean buttons do now: "deal", "reveal", "draw", "wants" or null. */
function paletteMode() {
  switch (state.view.phase) {
    case "deal":
      return "deal";
    case "plant":
      return "reveal";
    case "draw":
      return "draw";
    case "trade":
      return state.ruleset.trading ? "wants" : null;
    default:
      return null;
  }
}

// --- entries ------------------------------------------------------------------------------------

async function send(body, { keepBuffer = false } = {}) {
  if (state.busy) return;
  state.busy = true;
  try {
    const result = await api(`/api/games/${state.gameId}/commands`, { method: "POST", token: state.token, body });
    state.view = result.view;
    for (const item of result.events) state.log.push({ position: item.position, text: item.summary });
    state.log = state.log.slice(-40);
    state.seen = Math.max(state.seen, result.version);
    state.message = { ok: result.events.map((item) => item.summary).join(" · ") };
    state.buffer = [];
    if (body.type === "offer" || body.type === "accept" || body.type === "withdraw" || body.type === "decline") state.offer = null;
  } catch (error) {
    state.message = { error };
    if (!keepBuffer) state.buffer = [];
  } finally {
    state.busy = false;
  }
  adjust();
  render();
}

function addBean(bean) {
  const mode = paletteMode();
  if (mode === "deal") {
    const hand = state.deal[state.dealSeat];
    if (hand.length >= dealSize(state.dealSeat)) return;
    hand.push(bean);
    if (hand.length === dealSize(state.dealSeat)) {
      const next = seatsFromStart().find((seat) => state.deal[seat].length < dealSize(seat));
      if (next !== undefined) state.dealSeat = next;
    }
    render();
  } else if (mode === "reveal" || mode === "draw") {
    state.buffer.push(bean);
    // The table's chance step says how many cards come off the pile (fewer when the game ends).
    const owed = state.view.legal?.chance?.count ?? (mode === "reveal" ? state.ruleset.reveal : state.ruleset.draw);
    if (state.buffer.length >= owed) submitCards();
    else render();
  } else if (mode === "wants") {
    state.offer.wants.push(bean);
    render();
  }
}

function undo() {
  const mode = paletteMode();
  if (mode === "deal") {
    let hand = state.deal[state.dealSeat];
    if (!hand.length) {
      const order = seatsFromStart();
      const before = order[(order.indexOf(state.dealSeat) - 1 + order.length) % order.length];
      if (state.deal[before].length) state.dealSeat = before;
      hand = state.deal[state.dealSeat];
    }
    hand.pop();
  } else if (mode === "wants") {
    state.offer.wants.pop();
  } else {
    state.buffer.pop();
  }
  render();
}

function submitCards() {
  const mode = paletteMode();
  if (mode === "deal") {
    send({ type: "deal", hands: state.deal.map((hand) => [...hand]) }, { keepBuffer: true });
  } else if (mode === "reveal" || mode === "draw") {
    send({ type: mode, seat: state.view.active_seat, cards: [...state.buffer] });
  }
}

function plant(field) {
  const body = { type: "plant", seat: state.seat, field };
  if (state.view.phase !== "plant") body.bean = state.plantBean;
  send(body);
}

function makeOffer() {
  const offer = state.offer;
  const view = state.view;
  send({
    type: "offer",
    seat: state.seat,
    to: offer.to,
    hand: [...offer.hand].sort((a, b) => a - b),
    revealed: offer.faceUp.map((i) => view.revealed[i]),
    trade_area: offer.area.map((i) => view.seats[state.seat].trade_area[i]),
    wants: offer.wants,
  });
}

/** Accept with the cards the receiving seat holds: hand first, then face-up or trade-area cards. */
function accept(offer) {
  const view = state.view;
  const seat = view.seats[offer.to];
  const hand = [];
  const revealed = [];
  const tradeArea = [];
  const faceUp = offer.to === view.active_seat ? [...view.revealed] : [];
  const area = state.ruleset.allow_retrade ? [...seat.trade_area] : [];
  for (const bean of offer.wants) {
    const position = (seat.hand ?? []).findIndex((card, i) => card === bean && !hand.includes(i));
    if (position >= 0) hand.push(position);
    else if (faceUp.includes(bean)) revealed.push(...faceUp.splice(faceUp.indexOf(bean), 1));
    else if (area.includes(bean)) tradeArea.push(...area.splice(area.indexOf(bean), 1));
    else hand.push(-1);
  }
  const body = { type: "accept", seat: offer.to, offer: offer.id, hand: hand.filter((p) => p >= 0), revealed, trade_area: tradeArea };
  send(body);
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || typing(event) || state.busy) return;
  const key = event.key.toLowerCase();
  const beans = state.ruleset.beans;
  const beanIndex = BEAN_KEYS.indexOf(key);
  const fields = state.view.seats[state.seat].fields.length;
  let handled = true;
  if (beanIndex >= 0 && beanIndex < beans.length && paletteMode()) addBean(beans[beanIndex]);
  else if (key === "backspace" && paletteMode()) undo();
  else if (PLANT_KEYS.indexOf(key) >= 0 && PLANT_KEYS.indexOf(key) < fields && canPlant()) plant(PLANT_KEYS.indexOf(key));
  else if (HARVEST_KEYS.indexOf(key) >= 0 && HARVEST_KEYS.indexOf(key) < fields) send({ type: "harvest", seat: state.seat, field: HARVEST_KEYS.indexOf(key) });
  else if (key === "b" && state.ruleset.third_field) send({ type: "buy-field", seat: state.seat });
  else if (key === "t" && state.view.phase === "trade") send({ type: "end-trading", seat: state.view.active_seat });
  else handled = false;
  if (handled) event.preventDefault();
}

function canPlant() {
  const phase = state.view.phase;
  return phase === "plant" || plantSources().length > 0;
}

// --- drawing the entry panel --------------------------------------------------------------------

function render() {
  const focused = document.activeElement?.dataset?.key;
  fill(ui.table, renderTable(state.view));
  fill(
    ui.log,
    [...state.log].reverse().slice(0, 14).map((line) => h("li", {}, h("span", { class: "pos" }, String(line.position)), line.text)),
  );
  if (state.message?.error) fill(ui.message, errorView(state.message.error));
  else if (state.message?.ok) say(ui.message, `Recorded: ${state.message.ok}`, "ok");
  else fill(ui.message);
  fill(ui.entry, entryPanel());
  if (focused) ui.entry.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
}

function entryPanel() {
  const view = state.view;
  if (view.phase === "ended") {
    return [
      h("p", { class: "status" }, statusText(view)),
      h("p", {}, h("a", { class: "button primary", href: `/games/${state.gameId}/replay?perspective=host` }, "Replay the game")),
    ];
  }
  const head = [h("p", { class: "status", id: "entry-status" }, statusText(view)), h("p", { class: "hint", id: "what-now" }, whatNow())];
  switch (view.phase) {
    case "deal":
      return [head, palette()];
    case "trade":
      return [head, phaseActions(), seatPicker(), state.ruleset.trading ? tradeSection() : null, fieldSection()];
    case "draw":
      return [head, palette(), seatPicker(), fieldSection()];
    default:
      return [head, seatPicker(), fieldSection(), palette(), phaseActions()];
  }
}

function whatNow() {
  const view = state.view;
  const name = (seat) => view.seats[seat].name;
  const active = view.seats[view.active_seat];
  switch (view.phase) {
    case "deal":
      return "Enter each player's dealt cards, front card first, with the bean buttons (keys 1–9, 0, -). Backspace takes one back.";
    case "plant":
      if (view.planted_this_turn === 0 && active.hand?.length) return `${name(view.active_seat)} plants the front card (${label(active.hand[0])}): choose a field (Q, W, E).`;
      if (view.planted_this_turn === 1 && active.hand?.length) return `${name(view.active_seat)} may plant the next card (${label(active.hand[0])}), or name the ${state.ruleset.reveal} cards turned face up.`;
      return `Name the ${state.ruleset.reveal} cards ${name(view.active_seat)} turns face up.`;
    case "trade":
      return `Offers and answers; End trading (T) when ${name(view.active_seat)} is done.`;
    case "plant-traded":
      return "Every player plants the cards in their trade area: choose the player, the bean and the field.";
    case "draw":
      return `Name the ${state.ruleset.draw} cards ${name(view.active_seat)} draws.`;
    default:
      return phaseText(view);
  }
}

function seatPicker() {
  const view = state.view;
  return h(
    "section",
    { "aria-labelledby": "seat-title" },
    h("h3", { id: "seat-title" }, "Acting player"),
    h(
      "div",
      { class: "seat-picker", role: "group", "aria-labelledby": "seat-title" },
      view.seats.map((seat) =>
        h(
          "button",
          {
            type: "button",
            "aria-pressed": String(seat.seat === state.seat),
            "data-key": `seat-${seat.seat}`,
            onclick: () => {
              state.seat = seat.seat;
              state.message = null;
              if (view.phase === "trade") resetOffer();
              adjust();
              render();
            },
          },
          seat.name,
          seat.seat === view.active_seat ? " (active)" : "",
          seat.trade_area.length ? ` · ${plural(seat.trade_area.length, "card")} to plant` : "",
        ),
      ),
    ),
  );
}

function palette() {
  const mode = paletteMode();
  if (!mode) return null;
  const view = state.view;
  const beans = state.ruleset.beans;
  const titles = {
    deal: `Deal: ${view.seats[state.dealSeat].name}'s hand`,
    reveal: `Reveal: the ${plural(state.ruleset.reveal, "card")} turned face up`,
    draw: `Draw: the ${plural(state.ruleset.draw, "card")} ${view.seats[view.active_seat].name} draws`,
    wants: `…for the beans ${view.seats[state.seat].name} asks for`,
  };
  return h(
    "section",
    { "aria-labelledby": "palette-title" },
    h("h3", { id: "palette-title" }, titles[mode]),
    mode === "deal" ? dealRows() : mode === "wants" ? null : cardBuffer(mode),
    h(
      "div",
      { class: "palette", role: "group", "aria-label": "Beans" },
      beans.map((bean, i) =>
        h(
          "button",
          {
            type: "button",
            class: ["card", `bean-${bean}`],
            "data-bean": bean,
            "data-key": `bean-${bean}`,
            "aria-keyshortcuts": BEAN_KEYS[i],
            onclick: () => addBean(bean),
          },
          label(bean),
          BEAN_KEYS[i] ? h("kbd", {}, BEAN_KEYS[i]) : null,
        ),
      ),
    ),
    mode === "wants"
      ? null
      : h(
          "div",
          { class: "buttons" },
          h("button", { type: "button", onclick: undo, "data-key": "undo", "aria-keyshortcuts": "Backspace" }, "Take back ", h("kbd", {}, "⌫")),
          mode === "deal"
            ? h(
                "button",
                {
                  type: "button",
                  class: "primary",
                  id: "enter-deal",
                  "data-key": "enter-deal",
                  disabled: state.deal.some((hand, seat) => hand.length !== dealSize(seat)),
                  onclick: submitCards,
                },
                "Enter the deal",
              )
            : state.buffer.length
              ? h(
                  "button",
                  { type: "button", id: "enter-cards", "data-key": "enter-cards", onclick: submitCards },
                  `Enter just ${plural(state.buffer.length, "card")} (the game ends)`,
                )
              : null,
        ),
  );
}

function cardBuffer(mode) {
  const owed = mode === "reveal" ? state.ruleset.reveal : state.ruleset.draw;
  return h(
    "div",
    { class: "buffer", id: "buffer", "aria-live": "polite", "aria-label": "Cards named so far" },
    state.buffer.map((bean) => card(bean)),
    Array.from({ length: Math.max(0, owed - state.buffer.length) }, () => h("span", { class: "placeholder" })),
  );
}

function dealRows() {
  return h(
    "div",
    { class: "deal-rows" },
    seatsFromStart().map((seat) =>
      h(
        "div",
        { class: "inline deal-row", "data-seat": seat },
        h(
          "button",
          {
            type: "button",
            "aria-pressed": String(seat === state.dealSeat),
            "data-key": `deal-seat-${seat}`,
            onclick: () => {
              state.dealSeat = seat;
              render();
            },
          },
          `${state.view.seats[seat].name} ${state.deal[seat].length}/${dealSize(seat)}`,
        ),
        h("span", { class: "cards" }, state.deal[seat].map((bean) => card(bean))),
      ),
    ),
  );
}

function fieldSection() {
  const view = state.view;
  const seat = view.seats[state.seat];
  const phase = view.phase;
  const sources = plantSources();
  const planting = phase === "plant" ? (state.seat === view.active_seat && seat.hand?.length ? seat.hand[0] : null) : state.plantBean;
  return h(
    "section",
    { "aria-labelledby": "fields-title" },
    h("h3", { id: "fields-title" }, `${seat.name}'s fields`),
    sources.length
      ? h(
          "div",
          { class: "inline" },
          h("span", { class: "hint" }, "Plant which bean:"),
          h(
            "div",
            { class: "chips", role: "group", "aria-label": "Bean to plant" },
            sources.map((bean) =>
              h(
                "button",
                {
                  type: "button",
                  class: ["card", `bean-${bean}`],
                  "data-key": `source-${bean}`,
                  "aria-pressed": String(bean === state.plantBean),
                  onclick: () => {
                    state.plantBean = bean;
                    render();
                  },
                },
                label(bean),
              ),
            ),
          ),
        )
      : null,
    h(
      "div",
      { class: "field-actions" },
      seat.fields.map((field, f) =>
        h(
          "div",
          { class: "group", "data-field": f },
          h("strong", {}, `Field ${f + 1}: `, field.bean ? `${field.count}× ${label(field.bean)}` : "empty"),
          h(
            "button",
            {
              type: "button",
              class: "plant",
              "data-key": `plant-${f}`,
              disabled: !planting,
              "aria-keyshortcuts": PLANT_KEYS[f],
              onclick: () => plant(f),
            },
            planting ? `Plant ${label(planting)}` : "Plant",
            PLANT_KEYS[f] ? h("kbd", {}, PLANT_KEYS[f].toUpperCase()) : null,
          ),
          h(
            "button",
            {
              type: "button",
              class: "harvest",
              "data-key": `harvest-${f}`,
              disabled: !field.bean,
              "aria-keyshortcuts": HARVEST_KEYS[f],
              onclick: () => send({ type: "harvest", seat: state.seat, field: f }),
            },
            "Harvest",
            HARVEST_KEYS[f] ? h("kbd", {}, HARVEST_KEYS[f].toUpperCase()) : null,
          ),
        ),
      ),
    ),
    state.ruleset.third_field && !seat.bought_third_field
      ? h(
          "button",
          { type: "button", id: "buy-field", "data-key": "buy-field", "aria-keyshortcuts": "b", onclick: () => send({ type: "buy-field", seat: state.seat }) },
          `Buy a third field (${plural(state.ruleset.third_field_cost, "coin")})`,
          h("kbd", {}, "B"),
        )
      : null,
  );
}

function phaseActions() {
  const view = state.view;
  const active = view.active_seat;
  const actions = [];
  if (view.phase === "trade") {
    actions.push(
      h("button", { type: "button", class: "primary", id: "end-trading", "data-key": "end-trading", "aria-keyshortcuts": "t", onclick: () => send({ type: "end-trading", seat: active }) }, "End trading", h("kbd", {}, "T")),
    );
  }
  if (state.ruleset.players === 2) {
    if (view.phase === "resolve-offer") {
      for (const bean of new Set(view.duel_offer)) {
        actions.push(h("button", { type: "button", onclick: () => send({ type: "discard-offered", seat: active, bean }) }, `Discard the offered ${label(bean)}`));
      }
    }
    if (view.phase === "plant") {
      (view.seats[active].hand ?? []).forEach((bean, position) => {
        actions.push(h("button", { type: "button", onclick: () => send({ type: "discard-from-hand", seat: active, position }) }, `Discard ${label(bean)} (hand ${position + 1})`));
      });
    }
    if (view.phase === "plant-drawn") {
      actions.push(h("button", { type: "button", onclick: () => send({ type: "offer-rest", seat: active }) }, "Offer the rest"));
    }
  }
  return actions.length ? h("section", {}, h("div", { class: "buttons" }, actions)) : null;
}

function toggle(list, value) {
  const index = list.indexOf(value);
  if (index >= 0) list.splice(index, 1);
  else list.push(value);
}

function tradeSection() {
  const view = state.view;
  const offer = state.offer;
  const seat = view.seats[state.seat];
  const isActive = state.seat === view.active_seat;
  const range = offerRange();
  const chip = (bean, pressed, onclick, key, note = null) =>
    h("button", { type: "button", class: ["card", `bean-${bean}`], "aria-pressed": String(pressed), "data-key": key, onclick }, label(bean), note ? h("span", { class: "card-note" }, note) : null);
  const mayGiveFaceUp = range ? range.revealed.length > 0 : isActive;
  const mayGiveArea = range ? range.trade_area.length > 0 : state.ruleset.allow_retrade;
  const recipients = view.seats.filter((other) => (range ? range.to.includes(other.seat) : other.seat !== state.seat));
  const faceUp = mayGiveFaceUp ? view.revealed.map((bean, i) => ({ bean, i })) : [];
  return h(
    "section",
    { "aria-labelledby": "trade-title", id: "trade" },
    h("h3", { id: "trade-title" }, `${seat.name} offers`),
    h(
      "div",
      { class: "inline" },
      h("span", { class: "hint" }, "to"),
      recipients.map((other) =>
        h(
          "button",
          {
            type: "button",
            "aria-pressed": String(other.seat === offer.to),
            "data-key": `offer-to-${other.seat}`,
            onclick: () => {
              offer.to = other.seat;
              render();
            },
          },
          other.name,
        ),
      ),
    ),
    h("p", { class: "hint" }, "Gives (from the hand, by position, or face-up cards):"),
    h(
      "div",
      { class: "chips", id: "offer-gives" },
      (seat.hand ?? []).map((bean, position) =>
        chip(bean, offer.hand.includes(position), () => {
          toggle(offer.hand, position);
          render();
        }, `give-hand-${position}`, `hand ${position + 1}`),
      ),
      faceUp.map(({ bean, i }) =>
        chip(bean, offer.faceUp.includes(i), () => {
          toggle(offer.faceUp, i);
          render();
        }, `give-up-${i}`, "face up"),
      ),
      mayGiveArea
        ? seat.trade_area.map((bean, i) =>
            chip(bean, offer.area.includes(i), () => {
              toggle(offer.area, i);
              render();
            }, `give-area-${i}`, "trade area"),
          )
        : null,
    ),
    palette(),
    h(
      "p",
      { class: "inline" },
      h("span", { class: "hint" }, "Wants:"),
      offer.wants.length
        ? offer.wants.map((bean, i) =>
            chip(bean, false, () => {
              offer.wants.splice(i, 1);
              render();
            }, `want-${i}`, "remove"),
          )
        : h("span", { class: "muted" }, "nothing (a gift)"),
    ),
    h("button", { type: "button", class: "primary", id: "make-offer", "data-key": "make-offer", onclick: makeOffer }, `Offer to ${view.seats[offer.to].name}`),
    view.offers.length
      ? h(
          "div",
          { id: "open-offers" },
          h("h3", {}, "Open offers"),
          h(
            "ul",
            { class: "notes" },
            view.offers.map((open) =>
              h(
                "li",
                { class: "note", "data-offer": open.id },
                h("p", {}, `#${open.id} ${view.seats[open.proposer].name} → ${view.seats[open.to].name}: ${beansText(open.gives)} for ${open.wants.length ? beansText(open.wants) : "nothing"}`),
                h(
                  "div",
                  { class: "buttons" },
                  h("button", { type: "button", class: "accept", "data-key": `accept-${open.id}`, onclick: () => accept(open) }, `${view.seats[open.to].name} accepts`),
                  h("button", { type: "button", class: "decline", "data-key": `decline-${open.id}`, onclick: () => send({ type: "decline", seat: open.to, offer: open.id }) }, "Declines"),
                  h("button", { type: "button", class: "withdraw", "data-key": `withdraw-${open.id}`, onclick: () => send({ type: "withdraw", seat: open.proposer, offer: open.id }) }, "Withdrawn"),
                ),
              ),
            ),
          ),
        )
      : null,
  );
}

// --- start --------------------------------------------------------------------------------------

async function start() {
  await loadBeans();
  const gameId = fragment().get("game");
  if (gameId) await open(gameId);
  else await setup();
}

window.addEventListener("hashchange", () => window.location.reload());
start().catch((error) => fill(app, errorView(error)));
