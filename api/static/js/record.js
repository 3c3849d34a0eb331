// The tabletop recorder, phone first: create a game, then enter what the table does as it does it.
// The host's token acts for every seat. With unknown hands (the default) the recorder never sees a
// hand: it names a card only when the table shows it (a plant, a trade, a discard), and the bean
// pickers grey out the beans the card cannot be. Every entry can be taken back (one tap, always at
// the bottom) or corrected later from the list of entries; a refusal shows its RULES section.
// URL: /record (a new game) or /record#game=<id> (go on recording; the token is in storage).

import { api, errorView } from "./api.js";
import { beansText, card, coinsFor, counts, label, loadBeans } from "./beans.js";
import { fill, h, plural, say, typing } from "./dom.js";
import { Lineage } from "./lineage.js";
import { withRuleLinks } from "./rules.js";
import { renderTable, statusText } from "./table.js";
import { adoptToken, fragment, gamesWithTokens, rememberSeatLinks, rememberTokens, seatLinks, storedTokens, takeFragmentToken } from "./tokens.js";
import { possibleBeans as beansOfPile, nextPileBeans } from "./unseen.js";

const app = document.getElementById("app");
const main = document.querySelector("main");
const POLL_MS = 2000;

const state = {
  gameId: null,
  token: null,
  view: null,
  ruleset: null,
  entries: [],
  seen: null,
  message: null,
  busy: false,
  buffer: [],
  deal: null,
  dealSeat: 0,
  target: null,
  secondPlant: false,
  trade: null,
  correcting: null,
  accepting: null,
  answers: 0,
};
const ui = {};

// --- creating a game ----------------------------------------------------------------------------

async function setup() {
  document.getElementById("title").textContent = "Record a game at the table";
  const { presets, options } = await api("/api/rulesets");
  const seats = h("input", {
    id: "seats",
    name: "seats",
    required: true,
    placeholder: "Ana, Ben, Cleo",
    autocomplete: "off",
    autocapitalize: "words",
    "aria-describedby": "seats-hint",
  });
  const start = h("select", { id: "start-seat", name: "start_seat" });
  const names = () => seats.value.split(",").map((name) => name.trim());
  const showSeats = () => {
    const chosen = start.value;
    fill(start, names().filter(Boolean).map((name, seat) => h("option", { value: seat, selected: String(seat) === chosen }, name)));
    for (const row of document.querySelectorAll(".option[data-duel-only]")) row.hidden = names().filter(Boolean).length !== 2;
  };
  seats.addEventListener("input", showSeats);
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
  const hands = [
    ["unknown", "I don't see the players' hands", "cards are named when the table shows them"],
    ["known", "I enter every card dealt and drawn", "the players show me their hands"],
  ];
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
      h(
        "div",
        { class: "field-row", role: "radiogroup", "aria-labelledby": "hands-label" },
        h("span", { id: "hands-label" }, "The hands"),
        hands.map(([value, text, hint], i) =>
          h("label", { class: "choice" }, h("input", { type: "radio", name: "hands", value, checked: i === 0 }), ` ${text} `, h("span", { class: "hint" }, `(${hint})`)),
        ),
      ),
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
    const body = {
      mode: "tabletop",
      hands: form.querySelector("input[name=hands]:checked").value,
      ruleset: preset.value,
      options: chosen,
      seats: names(),
      start_seat: Number(start.value || 0),
    };
    try {
      const created = await api("/api/games", { method: "POST", body });
      rememberTokens(created.game_id, { host: created.host_token });
      rememberSeatLinks(created.game_id, created.seats);
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
          h("ul", {}, recordings.map(([gameId]) => h("li", {}, h("a", { href: `/record#game=${gameId}` }, `Game ${gameId.slice(-8)}`)))),
        )
      : null,
  );
  main.dataset.ready = "true";
  seats.focus();
}

// --- opening a game -------------------------------------------------------------------------------

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
    state.seen = view.version;
    await loadEntries();
  } catch (error) {
    fill(app, errorView(error));
    return;
  }
  document.getElementById("title").textContent = `Recording: ${state.view.seats.map((seat) => seat.name).join(", ")}`;
  // A what-if fork (made from a replay's "Fork from this step"): the game it came from, and both
  // outcomes as the recording goes on.
  ui.lineage = new Lineage({ base: `/api/games/${gameId}`, names: state.view.seats.map((seat) => seat.name) });
  ui.lineageSeen = state.seen;
  document.getElementById("title").after(ui.lineage.element);
  const lineage = ui.lineage.load();
  layout();
  adjust();
  render();
  window.setInterval(poll, POLL_MS);
  document.addEventListener("keydown", onKey);
  await lineage;
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

async function loadEntries() {
  const answer = await api(`/api/games/${state.gameId}/entries`, { token: state.token });
  state.entries = answer.entries;
}

async function poll() {
  if (state.busy || document.hidden) return;
  try {
    const summary = await api(`/api/games/${state.gameId}`, { token: state.token });
    if (summary.version === state.seen) return;
    await refresh();
  } catch {
    // A missed poll is caught up by the next one.
  }
}

async function refresh() {
  state.view = await api(`/api/games/${state.gameId}/view`, { token: state.token });
  state.seen = state.view.version;
  await loadEntries();
  adjust();
  render();
}

// --- what the table knows -------------------------------------------------------------------------

const view = () => state.view;
const seatName = (seat) => view().seats[seat].name;
const unknownHands = () => view().hands === "unknown";
const activeSeat = () => view().active_seat;

/** The beans a card nobody has seen may still be: those its draw pile has not shown. */
const possibleBeans = (pile) => new Set(beansOfPile(view(), pile));

/** The front card of the active seat: its bean, or null when nobody has seen it. */
function frontCard(seat = activeSeat()) {
  const hand = view().seats[seat].hand;
  return hand?.length ? hand[0] : null;
}

/** Where a bean goes by default: a field of that bean, else an empty field (RULES §7.1). */
function defaultField(seat, bean) {
  const fields = view().seats[seat].fields;
  const same = fields.findIndex((field) => field.bean === bean);
  if (same >= 0) return same;
  const empty = fields.findIndex((field) => !field.bean);
  return empty >= 0 ? empty : null;
}

function adjust() {
  const v = view();
  if (v.phase === "deal" && !state.deal) {
    state.deal = v.seats.map(() => []);
    state.dealSeat = v.start_seat;
  }
  if (v.phase !== "deal") state.deal = null;
  const key = `${v.turn}/${v.active_seat}/${v.phase}/${v.planted_this_turn}`;
  if (key !== state.turnKey) {
    state.turnKey = key;
    state.buffer = [];
    state.target = null;
    state.secondPlant = false;
    if (v.phase !== "trade") state.trade = null;
  }
  if (v.phase === "trade" && !state.trade) resetTrade();
}

// --- sending entries ------------------------------------------------------------------------------

async function send(body, { keep = false } = {}) {
  if (state.busy) return false;
  state.busy = true;
  let ok = false;
  try {
    const result = await postCommand(body);
    state.view = result.view;
    state.seen = result.version;
    state.message = { ok: result.events.map((item) => item.summary).join(" · ") };
    if (!keep) state.buffer = [];
    ok = true;
  } catch (error) {
    state.message = { error };
    if (!keep) state.buffer = [];
  } finally {
    state.busy = false;
    state.answers += 1;
  }
  await loadEntries().catch(() => {});
  adjust();
  render();
  return ok;
}

function postCommand(body) {
  return api(`/api/games/${state.gameId}/commands`, { method: "POST", token: state.token, body });
}

function undo() {
  send({ type: "undo" });
}

function harvest(seat, field) {
  const f = view().seats[seat].fields[field];
  const pays = coinsFor(f.bean, f.count);
  if (pays === 0 && !window.confirm(`${seatName(seat)} harvests field ${field + 1} (${f.count} ${label(f.bean)}) for 0 coins. Harvest anyway?`)) return;
  send({ type: "harvest", seat, field });
}

// --- layout -----------------------------------------------------------------------------------------

function layout() {
  ui.message = h("div", { id: "entry-message", "aria-live": "assertive" });
  ui.panel = h("div", { id: "entry" });
  ui.table = h("div", { id: "table" });
  ui.entries = h("section", { class: "panel", id: "entries", "aria-labelledby": "entries-title" });
  ui.bar = h("nav", { class: "record-bar", "aria-label": "Recording" });
  const links = h("div", { id: "links" });
  fill(
    app,
    h(
      "div",
      { class: "record-layout" },
      h("section", { class: "panel entry", "aria-labelledby": "entry-title" }, h("h2", { id: "entry-title", class: "visually-hidden" }, "Enter what happens"), ui.message, ui.panel),
      ui.table,
      ui.entries,
      links,
    ),
    ui.bar,
  );
  fillLinks(links);
}

function fillLinks(box) {
  const seats = seatLinks(state.gameId);
  const shown = h("code", { id: "host-token-text", hidden: true }, state.token);
  const origin = window.location.origin;
  fill(
    box,
    h(
      "details",
      { class: "panel" },
      h("summary", {}, "Tokens and links"),
      h("p", { class: "token-box" }, "Host token (acts for every seat; keep it private): ", shown, h("button", { type: "button", onclick: () => (shown.hidden = !shown.hidden) }, "Show / hide")),
      h("p", {}, h("a", { href: `/games/${state.gameId}/replay?perspective=host` }, "Replay this game (as the host)")),
      h("p", {}, "Resume on another device: ", h("code", {}, `${origin}/record#game=${state.gameId}&token=…`), " (with the host token after token=)"),
      seats.length
        ? [
            h("p", {}, "Each player's own page (send each link to that player only; with unknown hands a player can note their own hand there):"),
            h("ul", {}, seats.map((seat) => h("li", {}, h("a", { href: `/play/${state.gameId}#token=${seat.token}` }, `${seat.name}'s table`)))),
          ]
        : null,
    ),
  );
}

// --- drawing --------------------------------------------------------------------------------------

function render() {
  main.dataset.answers = String(state.answers);
  if (state.seen !== ui.lineageSeen) {
    ui.lineageSeen = state.seen;
    ui.lineage?.refresh({ soon: true });
  }
  fill(ui.table, tableWithHarvests());
  if (state.message?.error) fill(ui.message, errorView(state.message.error));
  else if (state.message?.ok) say(ui.message, `Recorded: ${state.message.ok}`, "ok");
  else fill(ui.message);
  fill(ui.panel, state.correcting ? correctionPanel() : entryPanel());
  fill(ui.entries, entriesView());
  // What an undo takes back: the host's last entry (a seat's note is its own). The deal is
  // corrected from the entries, never taken back, so the button waits for a later entry.
  const last = state.entries.findLast((entry) => entry.command.type !== "note-hand");
  const undoable = last !== undefined && last.command.type !== "deal";
  const undoTitle = undoable ? last.text : last ? "The deal is not undone: correct it from the entries" : "";
  fill(
    ui.bar,
    h("button", { type: "button", id: "undo", class: "undo", disabled: !undoable || state.busy, onclick: undo, title: undoTitle }, "↶ Undo last entry"),
    h("button", { type: "button", id: "to-entries", onclick: () => ui.entries.scrollIntoView({ block: "start" }) }, `Entries (${state.entries.length})`),
  );
}

/** The table, with a harvest button on every planted field (any seat may harvest at any time,
 *  RULES §8.1; the engine refuses what the rules do not allow). */
function tableWithHarvests() {
  const table = renderTable(view());
  if (view().phase === "ended" || view().phase === "deal") return table;
  for (const seatNode of table.querySelectorAll(".seat")) {
    const seat = Number(seatNode.dataset.seat);
    seatNode.querySelectorAll(".field").forEach((fieldNode, index) => {
      if (!fieldNode.dataset.bean) return;
      fieldNode.append(
        h("button", { type: "button", class: "harvest", "data-key": `harvest-${seat}-${index}`, onclick: () => harvest(seat, index) }, "Harvest"),
      );
    });
    const seatView = view().seats[seat];
    if (state.ruleset.third_field && !seatView.bought_third_field && seatView.fields.length < 3) {
      seatNode.querySelector(".fields")?.append(
        h("button", { type: "button", class: "buy-field", "data-key": `buy-${seat}`, onclick: () => send({ type: "buy-field", seat }) }, `Buy field 3 (${plural(state.ruleset.third_field_cost, "coin")})`),
      );
    }
  }
  return table;
}

function entryPanel() {
  const v = view();
  const head = h("p", { class: "status", id: "entry-status" }, statusText(v));
  switch (v.phase) {
    case "deal":
      return [head, hint("Enter each player's dealt cards, front card first. Each tap adds a card."), dealPanel()];
    case "plant":
      return [head, plantPanel()];
    case "trade":
      return [head, tradePanel()];
    case "plant-traded":
      return [head, plantTradedPanel()];
    case "draw":
      return [head, drawPanel()];
    case "resolve-offer":
      return [head, offeredPanel()];
    case "plant-drawn":
      return [head, drawnPanel()];
    case "ended":
      return [head, endedPanel()];
    default:
      return head;
  }
}

function hint(text) {
  return h("p", { class: "hint", id: "what-now" }, text);
}

/** A grid of bean buttons; beans not in `allowed` are greyed out (they cannot be there). */
function beanGrid(onPick, { allowed = null, id = null, label: title = "Beans", pressed = null } = {}) {
  return h(
    "div",
    { class: "palette", role: "group", "aria-label": title, id },
    state.ruleset.beans.map((bean) => {
      const possible = !allowed || allowed.has(bean);
      return h(
        "button",
        {
          type: "button",
          class: ["card", `bean-${bean}`, !possible && "impossible"],
          "data-bean": bean,
          disabled: !possible || state.busy,
          "aria-pressed": pressed === null ? null : String(pressed === bean),
          title: possible ? label(bean) : `${label(bean)}: every such card has been seen`,
          onclick: () => onPick(bean),
        },
        label(bean),
      );
    }),
  );
}

/** The fields of a seat to choose where a card goes (the default chosen unless tapped). */
function targetRow(seat, bean) {
  const fields = view().seats[seat].fields;
  const chosen = state.target ?? (bean ? defaultField(seat, bean) : null);
  return h(
    "div",
    { class: "chips targets", role: "group", "aria-label": "Field" },
    h("span", { class: "hint" }, "into"),
    fields.map((field, index) =>
      h(
        "button",
        {
          type: "button",
          "aria-pressed": String(chosen === index),
          "data-key": `target-${index}`,
          onclick: () => {
            state.target = index;
            render();
          },
        },
        `field ${index + 1}${field.bean ? ` (${field.count} ${label(field.bean)})` : " (empty)"}`,
      ),
    ),
  );
}

function plantInto(seat, bean) {
  const field = state.target ?? defaultField(seat, bean);
  if (field === null) {
    state.message = { error: new Error(`${label(bean)} fits no field of ${seatName(seat)}: harvest a field first (tap Harvest on it), or buy a third field.`) };
    render();
    return;
  }
  const body = { type: "plant", seat, field };
  if (bean) body.bean = bean;
  state.target = null;
  send(body);
}

// phase 1: plant the front card (one tap: its bean, or the known card), then reveal
function plantPanel() {
  const v = view();
  const seat = v.active_seat;
  const player = v.seats[seat];
  const parts = [];
  const mayPlant = player.hand_size > 0 && v.planted_this_turn < 2;
  const mustPlant = v.planted_this_turn === 0 && player.hand_size > 0;
  const revealing = !mustPlant && !state.secondPlant;
  if (mustPlant || (mayPlant && state.secondPlant)) {
    const which = v.planted_this_turn === 0 ? "front card" : "next card";
    const front = frontCard(seat);
    if (front) {
      parts.push(hint(`${player.name} plants the ${which}, ${label(front)}.`), targetRow(seat, front));
      parts.push(h("button", { type: "button", class: ["primary", "card", `bean-${front}`], id: "plant-front", onclick: () => plantInto(seat, null) }, `Plant ${label(front)}`));
    } else {
      parts.push(hint(`${player.name} plants the ${which}: tap its bean.`), targetRow(seat, null));
      const pile = player.hand_piles?.[0] ?? 0;
      parts.push(beanGrid((bean) => plantInto(seat, bean), { allowed: unknownHands() ? possibleBeans(pile) : null, id: "plant-beans", label: "The planted bean" }));
    }
    if (!mustPlant) parts.push(h("button", { type: "button", onclick: () => ((state.secondPlant = false), render()) }, "No second card: reveal"));
  }
  if (revealing) {
    if (mayPlant) parts.push(h("button", { type: "button", id: "second-plant", onclick: () => ((state.secondPlant = true), render()) }, `Plant a second card first`));
    parts.push(revealSection(seat));
  }
  if (state.ruleset.players === 2 && !mustPlant) parts.push(handDiscardSection(seat));
  return parts;
}

function chanceCount(kind) {
  const chance = view().legal?.chance;
  if (chance && chance.type === kind) return chance.count;
  return kind === "reveal" ? state.ruleset.reveal : state.ruleset.draw;
}

function revealSection(seat) {
  const owed = chanceCount("reveal");
  return h(
    "section",
    { "aria-labelledby": "reveal-title" },
    h("h3", { id: "reveal-title" }, `${seatName(seat)} turns up ${plural(owed, "card")}: tap them in order`),
    cardBuffer(owed),
    beanGrid((bean) => addCard(bean, "reveal", seat, owed), { allowed: new Set(nextPileBeans(view(), state.buffer, state.ruleset.beans)), id: "reveal-beans", label: "Cards turned up" }),
    bufferButtons("reveal", seat),
  );
}

function addCard(bean, type, seat, owed) {
  state.buffer.push(bean);
  if (state.buffer.length >= owed) send({ type, seat, cards: [...state.buffer] });
  else render();
}

function cardBuffer(owed) {
  return h(
    "div",
    { class: "buffer", id: "buffer", "aria-live": "polite", "aria-label": "Cards named so far" },
    state.buffer.map((bean) => card(bean)),
    Array.from({ length: Math.max(0, owed - state.buffer.length) }, () => h("span", { class: "placeholder" })),
  );
}

function bufferButtons(type, seat) {
  return h(
    "div",
    { class: "buttons" },
    state.buffer.length
      ? [
          h("button", { type: "button", onclick: () => (state.buffer.pop(), render()) }, "Take back a card"),
          h("button", { type: "button", id: "enter-cards", onclick: () => send({ type, seat, cards: [...state.buffer] }) }, `Only ${plural(state.buffer.length, "card")} (the pile ran out)`),
        ]
      : null,
  );
}

function handDiscardSection(seat) {
  const player = view().seats[seat];
  if (!player.hand_size) return null;
  return h(
    "details",
    { class: "more" },
    h("summary", {}, "Discard a card from the hand (bean duel)"),
    player.hand
      ? h("div", { class: "chips" }, player.hand.map((bean, position) => h("button", { type: "button", class: ["card", `bean-${bean}`], onclick: () => send({ type: "discard-from-hand", seat, position }) }, `${label(bean)} (card ${position + 1})`)))
      : [
          h("p", { class: "hint" }, "Which card, counted from the front, and its bean:"),
          h("div", { class: "chips" }, Array.from({ length: player.hand_size }, (_, position) => h("button", { type: "button", "aria-pressed": String(state.discardPosition === position), onclick: () => ((state.discardPosition = position), render()) }, `card ${position + 1}`))),
          state.discardPosition !== undefined
            ? beanGrid((bean) => send({ type: "discard-from-hand", seat, position: state.discardPosition, bean }), { allowed: possibleBeans(player.hand_piles[state.discardPosition]), label: "The discarded bean" })
            : null,
        ],
  );
}

// phase 2: trades (an offer and its acceptance as one entry), then end trading
function resetTrade() {
  const v = view();
  const partner = v.seats.find((seat) => seat.seat !== v.active_seat).seat;
  state.trade = { partner, faceUp: [], mine: [], theirs: [] };
}

function tradePanel() {
  const v = view();
  const active = v.active_seat;
  const trade = state.trade;
  const parts = [hint(`Record each trade or donation as it is agreed, then End trading.`)];
  if (state.ruleset.trading) {
    parts.push(
      h(
        "section",
        { id: "trade", "aria-labelledby": "trade-title" },
        h("h3", { id: "trade-title" }, `${seatName(active)} trades with`),
        h(
          "div",
          { class: "chips", role: "group", "aria-label": "Partner" },
          v.seats.filter((seat) => seat.seat !== active).map((seat) =>
            h("button", { type: "button", "aria-pressed": String(seat.seat === trade.partner), "data-key": `partner-${seat.seat}`, onclick: () => ((trade.partner = seat.seat), (trade.theirs = []), render()) }, seat.name),
          ),
        ),
        givesSection(active, trade.mine, true),
        givesSection(trade.partner, trade.theirs, false),
        h(
          "div",
          { class: "buttons" },
          h("button", { type: "button", class: "primary", id: "trade-done", disabled: !tradeSides().some((side) => side.length) || state.busy, onclick: submitTrade }, tradeLabel()),
          h("button", { type: "button", onclick: () => (resetTrade(), render()) }, "Clear"),
        ),
      ),
    );
  }
  if (v.offers.length) parts.push(openOffers());
  parts.push(h("button", { type: "button", class: "primary wide", id: "end-trading", onclick: () => send({ type: "end-trading", seat: active }) }, `End trading (${seatName(active)} keeps ${beansText(v.revealed.filter((bean, i) => !state.trade?.faceUp.includes(i)))})`));
  return parts;
}

function tradeSides() {
  const trade = state.trade;
  return [[...trade.faceUp, ...trade.mine], trade.theirs];
}

function tradeLabel() {
  const [mine, theirs] = tradeSides();
  if (mine.length && theirs.length) return "Trade done";
  if (mine.length || theirs.length) return "Donation done";
  return "Trade done";
}

/** What one side of a trade gives: face-up cards (the active seat), hand cards. Known hands:
 *  the cards themselves, by position. Unknown hands: the bean, and the card only when it matters
 *  (cards from different draw piles). */
function givesSection(seat, chosen, isActive) {
  const v = view();
  const player = v.seats[seat];
  const trade = state.trade;
  const title = `${player.name} gives`;
  const faceUp = isActive
    ? v.revealed.map((bean, i) =>
        h("button", { type: "button", class: ["card", `bean-${bean}`], "aria-pressed": String(trade.faceUp.includes(i)), "data-key": `face-up-${i}`, onclick: () => (toggle(trade.faceUp, i), render()) }, label(bean), h("span", { class: "card-note" }, "face up")),
      )
    : [];
  let fromHand;
  if (player.hand) {
    fromHand = player.hand.map((bean, position) =>
      h(
        "button",
        { type: "button", class: ["card", `bean-${bean}`], "aria-pressed": String(chosen.some((c) => c.position === position)), "data-key": `give-${seat}-${position}`, onclick: () => (toggleCard(chosen, { position, bean }), render()) },
        label(bean),
        h("span", { class: "card-note" }, `hand ${position + 1}`),
      ),
    );
  } else {
    const piles = player.hand_piles ?? [];
    const mixed = new Set(piles).size > 1;
    const picker = (bean) => {
      const free = piles.map((pile, position) => ({ pile, position })).filter(({ position }) => !chosen.some((c) => c.position === position));
      const candidates = free.filter(({ pile }) => possibleBeans(pile).has(bean));
      if (!candidates.length) return;
      chosen.push({ position: mixed ? null : candidates[0].position, bean, candidates: candidates.map((c) => c.position) });
      render();
    };
    const allowed = new Set(piles.flatMap((pile) => [...possibleBeans(pile)]));
    fromHand = [
      chosen.map((given, i) =>
        h(
          "span",
          { class: "given" },
          h("button", { type: "button", class: ["card", `bean-${given.bean}`], title: "remove", onclick: () => (chosen.splice(i, 1), render()) }, label(given.bean), h("span", { class: "card-note" }, given.position === null ? "which card?" : `hand ${given.position + 1}`)),
          given.position === null
            ? h(
                "span",
                { class: "chips which-card", role: "group", "aria-label": "Which card, from the front" },
                given.candidates.map((position) =>
                  h("button", { type: "button", "data-key": `which-${seat}-${position}`, onclick: () => ((given.position = position), render()) }, `card ${position + 1}${piles[position] ? ` (pile ${piles[position] + 1})` : ""}`),
                ),
              )
            : null,
        ),
      ),
      h(
        "details",
        { class: "hand-beans", open: !isActive || chosen.length > 0 },
        h("summary", {}, "from the hand: tap the bean"),
        beanGrid(picker, { allowed, id: `gives-${seat}`, label: `${player.name}'s hand card` }),
      ),
    ];
  }
  return h("div", { class: "gives", "data-seat": seat }, h("h4", {}, title), h("div", { class: "chips" }, faceUp), fromHand);
}

function toggle(list, value) {
  const index = list.indexOf(value);
  if (index >= 0) list.splice(index, 1);
  else list.push(value);
}

function toggleCard(list, chosen) {
  const index = list.findIndex((c) => c.position === chosen.position);
  if (index >= 0) list.splice(index, 1);
  else list.push(chosen);
}

function handPart(chosen) {
  const given = [...chosen].sort((a, b) => a.position - b.position);
  const body = { hand: given.map((c) => c.position) };
  if (unknownHands()) body.hand_beans = given.map((c) => c.bean);
  return body;
}

function submitTrade() {
  const v = view();
  const trade = state.trade;
  const active = v.active_seat;
  if ([...trade.mine, ...trade.theirs].some((c) => c.position === null)) {
    state.message = { error: new Error("Tap which card each hand card was (it matters: they came from different draw piles).") };
    render();
    return;
  }
  const faceUp = trade.faceUp.map((i) => v.revealed[i]);
  const offer = { type: "offer", seat: active, to: trade.partner, revealed: faceUp, ...handPart(trade.mine), wants: trade.theirs.map((c) => c.bean) };
  const bodies = [offer];
  const donationToActive = !faceUp.length && !trade.mine.length;
  if (donationToActive) {
    // A gift to the active player: the partner offers it, the active player accepts.
    bodies[0] = { type: "offer", seat: trade.partner, to: active, ...handPart(trade.theirs), wants: [] };
    bodies.push({ type: "accept", seat: active, offer: null });
  } else {
    bodies.push({ type: "accept", seat: trade.partner, offer: null, ...handPart(trade.theirs) });
  }
  acceptAfterOffer(bodies);
}

async function acceptAfterOffer([offer, accept]) {
  if (state.busy) return;
  state.busy = true;
  try {
    const offered = await postCommand(offer);
    const made = offered.events.find((item) => item.type === "TradeOffered");
    const result = await postCommand({ ...accept, offer: made.event.offer });
    state.view = result.view;
    state.seen = result.version;
    state.message = { ok: [...offered.events, ...result.events].map((item) => item.summary).join(" · ") };
    state.trade = null;
  } catch (error) {
    state.message = { error };
  } finally {
    state.busy = false;
    state.answers += 1;
  }
  await refresh().catch(() => {});
}

function openOffers() {
  const v = view();
  return h(
    "section",
    { id: "open-offers" },
    h("h3", {}, "Open offers (made from the players' own pages)"),
    h(
      "ul",
      { class: "notes" },
      v.offers.map((offer) =>
        h(
          "li",
          { class: "note", "data-offer": offer.id },
          h("p", {}, `#${offer.id} ${seatName(offer.proposer)} → ${seatName(offer.to)}: ${beansText(offer.gives)} for ${offer.wants.length ? beansText(offer.wants) : "nothing"}`),
          h(
            "div",
            { class: "buttons" },
            acceptWays(offer),
            h("button", { type: "button", class: "decline", "data-key": `decline-${offer.id}`, onclick: () => send({ type: "decline", seat: offer.to, offer: offer.id }) }, "Declined"),
            h("button", { type: "button", class: "withdraw", "data-key": `withdraw-${offer.id}`, onclick: () => send({ type: "withdraw", seat: offer.proposer, offer: offer.id }) }, "Withdrawn"),
          ),
          state.accepting?.offer === offer.id ? whichCards(offer) : null,
        ),
      ),
    ),
  );
}

/** The ways the offer's recipient can give what it wants (the engine lists them): one button
 *  each, named by the cards given. With unknown hands, a way whose hand cards could come from
 *  different draw piles asks which card each was first (it matters then). */
function acceptWays(offer) {
  const ways = (view().legal?.commands ?? []).filter((c) => c.type === "accept" && c.offer === offer.id);
  const acceptor = view().seats[offer.to];
  return ways.map((way, i) => {
    const parts = [
      ...way.hand.map((position, j) => (acceptor.hand ? `${label(acceptor.hand[position])} (hand ${position + 1})` : `${label(way.hand_beans[j])} from the hand`)),
      ...way.revealed.map((bean) => `face-up ${label(bean)}`),
      ...way.trade_area.map((bean) => `${label(bean)} from the trade area`),
    ];
    const text = ways.length === 1 ? "Accepted" : `Accepted: ${parts.join(", ") || "nothing"}`;
    return h("button", { type: "button", class: "accept", "data-key": `accept-${offer.id}-${i}`, onclick: () => accept(offer, way) }, text);
  });
}

function accept(offer, way) {
  const piles = view().seats[offer.to].hand_piles;
  const mixed = piles && new Set(piles).size > 1 && way.hand.length > 0;
  if (!mixed) {
    send(way);
    return;
  }
  state.accepting = {
    offer: offer.id,
    way,
    chosen: way.hand_beans.map((bean) => ({
      bean,
      position: null,
      candidates: piles.map((pile, position) => ({ pile, position })).filter(({ pile }) => possibleBeans(pile).has(bean)).map(({ position }) => position),
    })),
  };
  render();
}

function whichCards(offer) {
  const accepting = state.accepting;
  const piles = view().seats[offer.to].hand_piles;
  const taken = (position) => accepting.chosen.some((c) => c.position === position);
  const ready = accepting.chosen.every((c) => c.position !== null);
  return h(
    "div",
    { class: "which" },
    h("p", { class: "hint" }, `Which of ${seatName(offer.to)}'s cards (counted from the front)? They came from different draw piles.`),
    accepting.chosen.map((given, i) =>
      h(
        "div",
        { class: "chips", role: "group", "aria-label": label(given.bean) },
        card(given.bean),
        given.candidates.map((position) =>
          h(
            "button",
            { type: "button", "aria-pressed": String(given.position === position), disabled: given.position !== position && taken(position), "data-key": `accept-which-${i}-${position}`, onclick: () => ((given.position = position), render()) },
            `card ${position + 1} (pile ${piles[position] + 1})`,
          ),
        ),
      ),
    ),
    h(
      "button",
      {
        type: "button",
        class: "primary",
        disabled: !ready,
        id: "accept-chosen",
        onclick: () => {
          const chosen = [...accepting.chosen].sort((a, b) => a.position - b.position);
          state.accepting = null;
          send({ ...accepting.way, hand: chosen.map((c) => c.position), hand_beans: chosen.map((c) => c.bean) });
        },
      },
      "Accepted",
    ),
  );
}

// phase 3: plant the traded and kept cards (one tap: every card where it obviously goes)
function plantTradedPanel() {
  const v = view();
  const waiting = v.seats.filter((seat) => seat.trade_area.length);
  const plan = autoPlan();
  return [
    hint(`Every player plants the cards in their trade area (${waiting.map((seat) => `${seat.name}: ${beansText(seat.trade_area)}`).join("; ")}).`),
    plan.length
      ? h("button", { type: "button", class: "primary wide", id: "plant-all", onclick: () => plantAll(plan) }, `Plant ${plural(plan.length, "card")} where ${plan.length === 1 ? "it goes" : "they go"}`)
      : null,
    waiting.map((seat) => {
      // The plants the rules allow now (an implicit harvest's included, under that house rule).
      const plants = (v.legal?.commands ?? []).filter((command) => command.type === "plant" && command.seat === seat.seat);
      return h(
        "div",
        { class: "gives", "data-seat": seat.seat },
        h("h4", {}, `${seat.name} plants`),
        plants.length
          ? h(
              "div",
              { class: "chips" },
              plants.map((command) => {
                const held = seat.fields[command.field].bean;
                const harvest = held && held !== command.bean ? ` (its ${label(held)} harvested first)` : "";
                return h("button", { type: "button", class: ["card", `bean-${command.bean}`], "data-key": `plant-${seat.seat}-${command.bean}-${command.field}`, onclick: () => send(command) }, `${label(command.bean)} → field ${command.field + 1}${harvest}`);
              }),
            )
          : hint(`No field of ${seat.name}'s takes ${beansText(seat.trade_area)} now: harvest a field or buy a third one at ${seat.name}'s seat below, then plant.`),
      );
    }),
  ];
}

/** The plants whose field is not in doubt: onto a field of the same bean, else into the only
 *  empty field; cards that need a harvest first are left to the recorder. */
function autoPlan() {
  const plan = [];
  for (const seat of view().seats) {
    const fields = seat.fields.map((field) => ({ ...field }));
    for (const bean of seat.trade_area) {
      let target = fields.findIndex((field) => field.bean === bean);
      if (target < 0) {
        const empty = fields.map((field, i) => (field.bean ? -1 : i)).filter((i) => i >= 0);
        if (empty.length === 0) continue;
        target = empty[0];
      }
      fields[target].bean = bean;
      fields[target].count += 1;
      plan.push({ type: "plant", seat: seat.seat, field: target, bean });
    }
  }
  return plan;
}

async function plantAll(plan) {
  if (state.busy) return;
  state.busy = true;
  try {
    for (const body of plan) {
      const result = await postCommand(body);
      state.view = result.view;
      state.seen = result.version;
    }
    state.message = { ok: `${plural(plan.length, "card")} planted` };
  } catch (error) {
    state.message = { error };
  } finally {
    state.busy = false;
    state.answers += 1;
  }
  await refresh().catch(() => {});
}

// phase 4: draw (unknown hands: one tap; known hands: name each card)
function drawPanel() {
  const seat = activeSeat();
  const owed = chanceCount("draw");
  if (unknownHands()) {
    return [
      hint(`${seatName(seat)} draws to the back of the hand, unseen.`),
      h("button", { type: "button", class: "primary wide", id: "draw", onclick: () => send({ type: "draw", seat }) }, `${seatName(seat)} draws ${plural(state.ruleset.draw, "card")}`),
    ];
  }
  return h(
    "section",
    { "aria-labelledby": "draw-title" },
    h("h3", { id: "draw-title" }, `${seatName(seat)} draws ${plural(owed, "card")}: tap them in order`),
    cardBuffer(owed),
    beanGrid((bean) => addCard(bean, "draw", seat, owed), { allowed: new Set(nextPileBeans(view(), state.buffer, state.ruleset.beans)), id: "draw-beans", label: "Cards drawn" }),
    bufferButtons("draw", seat),
  );
}

// the bean duel's own steps
function offeredPanel() {
  const v = view();
  const seat = v.active_seat;
  return [
    hint(`${seatName(seat)} plants or discards each card ${seatName((seat + 1) % 2)} offered.`),
    [...new Set(v.duel_offer)].map((bean) =>
      h(
        "div",
        { class: "buttons" },
        card(bean),
        v.seats[seat].fields.map((field, index) => (field.bean === null || field.bean === bean ? h("button", { type: "button", onclick: () => send({ type: "plant", seat, field: index, bean }) }, `→ field ${index + 1}`) : null)),
        h("button", { type: "button", onclick: () => send({ type: "discard-offered", seat, bean }) }, "Discard"),
      ),
    ),
  ];
}

function drawnPanel() {
  const v = view();
  const seat = v.active_seat;
  return [
    hint(`${seatName(seat)} plants any of the cards drawn; the rest are offered.`),
    [...new Set(v.revealed)].map((bean) =>
      h(
        "div",
        { class: "buttons" },
        card(bean),
        v.seats[seat].fields.map((field, index) => (field.bean === null || field.bean === bean ? h("button", { type: "button", onclick: () => send({ type: "plant", seat, field: index, bean }) }, `→ field ${index + 1}`) : null)),
      ),
    ),
    h("button", { type: "button", class: "primary", onclick: () => send({ type: "offer-rest", seat }) }, "Offer the rest"),
  ];
}

function dealPanel() {
  const v = view();
  const sizes = state.ruleset.deal;
  const size = (seat) => sizes[(seat - v.start_seat + v.players) % v.players];
  const order = Array.from({ length: v.players }, (_, i) => (v.start_seat + i) % v.players);
  const add = (bean) => {
    const hand = state.deal[state.dealSeat];
    if (hand.length >= size(state.dealSeat)) return;
    hand.push(bean);
    if (hand.length === size(state.dealSeat)) {
      const next = order.find((seat) => state.deal[seat].length < size(seat));
      if (next !== undefined) state.dealSeat = next;
    }
    render();
  };
  const named = counts(state.deal.flat());
  const pile = counts(v.draw_pile.cards ?? []);
  return [
    h(
      "div",
      { class: "deal-rows" },
      order.map((seat) =>
        h(
          "div",
          { class: "inline deal-row", "data-seat": seat },
          h("button", { type: "button", "aria-pressed": String(seat === state.dealSeat), "data-key": `deal-seat-${seat}`, onclick: () => ((state.dealSeat = seat), render()) }, `${seatName(seat)} ${state.deal[seat].length}/${size(seat)}`),
          h("span", { class: "cards" }, state.deal[seat].map((bean) => card(bean))),
        ),
      ),
    ),
    beanGrid(add, { allowed: new Set(state.ruleset.beans.filter((bean) => (named.get(bean) ?? 0) < (pile.get(bean) ?? 0))), label: "Dealt cards" }),
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "button", onclick: () => (state.deal[state.dealSeat].pop(), render()) }, "Take back a card"),
      h("button", { type: "button", class: "primary", id: "enter-deal", disabled: state.deal.some((hand, seat) => hand.length !== size(seat)), onclick: () => send({ type: "deal", hands: state.deal.map((hand) => [...hand]) }, { keep: true }) }, "Enter the deal"),
    ),
  ];
}

function endedPanel() {
  return [
    h("p", {}, h("a", { class: "button primary", href: `/games/${state.gameId}/replay?perspective=host` }, "Replay the game")),
    hint("A mistake found after the end can still be corrected: open the entries below."),
  ];
}

// --- the entries and corrections -----------------------------------------------------------------

function entriesView() {
  const shown = [...state.entries].reverse();
  return [
    h("h2", { id: "entries-title" }, "Entries"),
    h("p", { class: "hint" }, "What was entered, newest first. Correct any entry: the game is decided again from it, and the entry as first entered stays on record. Keys: 1–9, 0, - name beans; T ends trading; U takes back the last entry."),
    h(
      "ol",
      { class: "log", id: "log", reversed: true, tabindex: "0", "aria-label": "Entries, newest first" },
      shown.map((entry) =>
        h(
          "li",
          { "data-entry": entry.entry, class: entry.corrected ? "corrected" : null },
          h("span", { class: "pos" }, String(entry.entry + 1)),
          entry.text,
          entry.corrected ? h("span", { class: "badge" }, `corrected (#${entry.corrected})`) : null,
          entry.command.type === "note-hand"
            ? null
            : h("button", { type: "button", class: "correct", "data-key": `correct-${entry.entry}`, onclick: () => startCorrection(entry) }, "Correct"),
        ),
      ),
    ),
  ];
}

/** Open the correction of `entry`. `pending`: changes already made in this correction (a later
 *  entry they made illegal is corrected with them, in one correction). */
async function startCorrection(entry, pending = []) {
  const command = JSON.parse(JSON.stringify(entry.command));
  const fix = { entry, command, cards: [], insert: null, pending: pending.filter((change) => change.entry !== entry.entry || change.action === "insert"), hand: null, followUp: null };
  state.correcting = fix;
  state.message = null;
  if ((command.type === "offer" || command.type === "accept") && !unknownHands()) {
    // Which hand cards were given: the hand as it was just before this entry (the host entered it).
    const before = await api(`/api/games/${state.gameId}/steps/${entry.first_step - 1}`, { token: state.token }).catch(() => null);
    fix.hand = before?.view?.seats?.[command.seat]?.hand ?? null;
  }
  render();
  ui.panel.scrollIntoView({ block: "start" });
}

function changeText(change) {
  const text = state.entries[change.entry]?.text ?? "";
  if (change.action === "insert") return `insert before entry ${change.entry + 1}`;
  return `${change.action} entry ${change.entry + 1}${text ? ` (as entered: ${text})` : ""}`;
}

/** A buffer of named cards, one row per group (a seat of the deal, or the one reveal or draw). */
function cardRows(fix, counts, names) {
  let from = 0;
  return counts.map((count, row) => {
    const cards = fix.cards.slice(from, from + count);
    from += count;
    return h(
      "div",
      { class: "buffer", "aria-label": names[row] ?? "Cards named so far" },
      names[row] ? h("span", { class: "hint" }, `${names[row]}:`) : null,
      cards.map((bean) => card(bean)),
      Array.from({ length: count - cards.length }, () => h("span", { class: "placeholder" })),
    );
  });
}

function cardsEditor(fix, counts, names, apply, what) {
  const total = counts.reduce((sum, count) => sum + count, 0);
  return [
    cardRows(fix, counts, names),
    beanGrid((bean) => {
      if (fix.cards.length < total) fix.cards.push(bean);
      render();
    }, { id: "correct-beans", label: "Corrected cards" }),
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "button", id: "correct-back", disabled: !fix.cards.length, onclick: () => (fix.cards.pop(), render()) }, "Take back a card"),
      h("button", { type: "button", class: "primary", id: "apply-correction", disabled: fix.cards.length !== total, onclick: apply }, what),
    ),
  ];
}

/** The hand cards a seat gave in a trade: with known hands tap them in the hand as it was; with
 *  unknown hands name each one's bean. */
function givenEditor(fix) {
  const command = fix.command;
  const name = view().seats[command.seat].name;
  if (unknownHands()) {
    if (!command.hand?.length) return [];
    fix.beans ??= command.hand.map((_, i) => command.hand_beans?.[i] ?? null);
    return [
      h("p", { class: "hint" }, `The ${plural(command.hand.length, "card")} ${name} gave from the hand, as they really were:`),
      command.hand.map((position, i) =>
        beanGrid((bean) => ((fix.beans[i] = bean), render()), { pressed: fix.beans[i], id: `correct-given-${i}`, label: `The bean of hand card ${position + 1}` }),
      ),
    ];
  }
  if (!fix.hand || fix.hand.some((bean) => !bean)) return [];
  command.hand ??= [];
  return [
    h("p", { class: "hint" }, `Which of ${name}'s hand cards were given (the hand before this entry, front first):`),
    h(
      "div",
      { class: "chips", role: "group", "aria-label": `${name}'s hand`, id: "correct-hand" },
      fix.hand.map((bean, position) =>
        h(
          "button",
          { type: "button", class: ["card", `bean-${bean}`], "aria-pressed": String(command.hand.includes(position)), "data-key": `fix-hand-${position}`, onclick: () => (toggle(command.hand, position), command.hand.sort((a, b) => a - b), render()) },
          `${position + 1}. ${label(bean)}`,
        ),
      ),
    ),
  ];
}

function givenCommand(fix) {
  const command = { ...fix.command };
  if (unknownHands() && command.hand?.length) command.hand_beans = fix.beans;
  else delete command.hand_beans;
  return command;
}

function offerEditor(fix) {
  const command = fix.command;
  return [
    h("p", { class: "hint" }, "Made to:"),
    h(
      "div",
      { class: "chips", role: "group", "aria-label": "Offer made to" },
      view()
        .seats.filter((seat) => seat.seat !== command.seat)
        .map((seat) => h("button", { type: "button", "aria-pressed": String(command.to === seat.seat), "data-key": `fix-to-${seat.seat}`, onclick: () => ((command.to = seat.seat), render()) }, seat.name)),
    ),
    h("p", { class: "hint" }, "Asking for:"),
    h("div", { class: "buffer", id: "correct-wants", "aria-label": "Beans asked for" }, command.wants.length ? command.wants.map((bean) => card(bean)) : h("span", { class: "hint" }, "nothing (a gift)")),
    beanGrid((bean) => (command.wants.push(bean), render()), { id: "correct-wants-beans", label: "Beans asked for" }),
    h("div", { class: "buttons" }, h("button", { type: "button", disabled: !command.wants.length, onclick: () => (command.wants.pop(), render()) }, "Take back a bean asked for")),
  ];
}

function correctionPanel() {
  const fix = state.correcting;
  const command = fix.command;
  const entry = fix.entry;
  const parts = [h("h3", {}, `Correct entry ${entry.entry + 1}: ${entry.text}`)];
  if (fix.pending.length) {
    parts.push(h("p", { class: "hint", id: "pending-changes" }, `In the same correction: ${fix.pending.map(changeText).join("; ")}.`));
  }
  const apply = (changes) => {
    const all = [...fix.pending, ...changes];
    send({ type: "correct", changes: all }).then((ok) => {
      if (ok) state.correcting = null;
      else {
        // A later entry the correction makes illegal: offer to correct it in the same correction.
        const illegal = state.message?.error?.body?.illegal_entry;
        fix.followUp = Number.isInteger(illegal) && state.entries[illegal] ? { entry: state.entries[illegal], changes: all } : null;
      }
      render();
    });
  };
  const replace = (what) => () => apply([{ entry: entry.entry, action: "replace", command: what() }]);
  if (fix.followUp) {
    parts.push(
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "correct-follow-up", onclick: () => startCorrection(fix.followUp.entry, fix.followUp.changes) }, `Correct entry ${fix.followUp.entry.entry + 1} (${fix.followUp.entry.text}) in the same correction`),
      ),
    );
  }
  if (command.type === "reveal" || command.type === "draw" || command.type === "show-hand") {
    const count = command.cards.length;
    if (!(command.type === "draw" && unknownHands())) {
      parts.push(
        h("p", { class: "hint" }, `The ${plural(count, "card")} as they really were, in order:`),
        cardsEditor(fix, [count], [], replace(() => ({ ...command, cards: fix.cards })), "Replace the cards"),
      );
    }
  } else if (command.type === "deal") {
    const counts = command.hands.map((hand) => hand.length);
    parts.push(
      h("p", { class: "hint" }, "The cards each seat was really dealt, front first, seat by seat:"),
      cardsEditor(fix, counts, view().seats.map((seat) => seat.name), replace(() => ({ ...command, hands: dealtHands(fix.cards, counts) })), "Replace the deal"),
    );
  } else if (command.type === "plant") {
    parts.push(
      h("p", { class: "hint" }, "The bean really planted, and where:"),
      beanGrid((bean) => ((command.bean = bean), render()), { pressed: command.bean, id: "correct-beans", label: "Planted bean" }),
      fieldChips(command, "fix-plant-field"),
      h("button", { type: "button", class: "primary", id: "apply-correction", onclick: replace(() => command) }, "Replace the plant"),
    );
  } else if (command.type === "harvest") {
    parts.push(
      h("p", { class: "hint" }, "Who really harvested which field:"),
      seatChips(command),
      fieldChips(command),
      h("button", { type: "button", class: "primary", id: "apply-correction", onclick: replace(() => command) }, "Replace the harvest"),
    );
  } else if (command.type === "offer" || command.type === "accept") {
    const given = givenEditor(fix);
    const incomplete = unknownHands() && command.hand?.length && fix.beans?.some((bean) => !bean);
    parts.push(
      command.type === "offer" ? offerEditor(fix) : null,
      given,
      given.length || command.type === "offer"
        ? h("button", { type: "button", class: "primary", id: "apply-correction", disabled: Boolean(incomplete), onclick: replace(() => givenCommand(fix)) }, command.type === "offer" ? "Replace the offer" : "Replace the cards given")
        : null,
    );
  }
  const insert = fix.insert;
  parts.push(
    h(
      "details",
      { class: "more", open: Boolean(insert) },
      h("summary", {}, "A harvest or a field purchase was missed before this entry"),
      h(
        "div",
        { class: "chips" },
        h("button", { type: "button", "data-key": "insert-harvest", onclick: () => ((fix.insert = { type: "harvest", seat: activeSeat(), field: 0 }), render()) }, "a harvest"),
        h("button", { type: "button", "data-key": "insert-buy", onclick: () => ((fix.insert = { type: "buy-field", seat: activeSeat() }), render()) }, "a third field bought"),
      ),
      insert ? [seatChips(insert), insert.type === "harvest" ? fieldChips(insert) : null, h("button", { type: "button", class: "primary", id: "apply-insert", onclick: () => apply([{ entry: entry.entry, action: "insert", command: insert }]) }, `Insert it before entry ${entry.entry + 1}`)] : null,
    ),
    h(
      "div",
      { class: "buttons" },
      command.type === "deal" ? null : h("button", { type: "button", class: "danger", id: "delete-entry", onclick: () => apply([{ entry: entry.entry, action: "delete", command: null }]) }, "Delete this entry (it did not happen)"),
      h("button", { type: "button", id: "cancel-correction", onclick: () => ((state.correcting = null), render()) }, "Cancel"),
    ),
  );
  return parts;
}

function dealtHands(cards, counts) {
  let from = 0;
  return counts.map((count) => cards.slice(from, (from += count)));
}

function seatChips(command) {
  return h(
    "div",
    { class: "chips", role: "group", "aria-label": "Player" },
    view().seats.map((seat) => h("button", { type: "button", "aria-pressed": String(command.seat === seat.seat), "data-key": `fix-seat-${seat.seat}`, onclick: () => ((command.seat = seat.seat), render()) }, seat.name)),
  );
}

function fieldChips(command, key = "fix-field") {
  return h(
    "div",
    { class: "chips", role: "group", "aria-label": "Field" },
    [0, 1, 2].map((index) => h("button", { type: "button", "aria-pressed": String(command.field === index), "data-key": `${key}-${index}`, onclick: () => ((command.field = index), render()) }, `field ${index + 1}`)),
  );
}

// --- keys (a keyboard beside the table is quicker still) -------------------------------------------

const BEAN_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-"];

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || typing(event) || state.busy) return;
  const key = event.key.toLowerCase();
  const index = BEAN_KEYS.indexOf(key);
  let target = null;
  if (index >= 0) target = ui.panel.querySelectorAll(".palette")[0]?.querySelectorAll("button.card")[index];
  else if (key === "t") target = document.getElementById("end-trading");
  else if (key === "u") target = document.getElementById("undo");
  else if (key === "backspace" && state.buffer.length) {
    state.buffer.pop();
    render();
    event.preventDefault();
    return;
  }
  if (target && !target.disabled) {
    target.click();
    event.preventDefault();
  }
}

// --- start ----------------------------------------------------------------------------------------

async function start() {
  await loadBeans();
  const gameId = fragment().get("game");
  if (gameId) await open(gameId);
  else await setup();
}

window.addEventListener("hashchange", () => window.location.reload());
start().catch((error) => fill(app, errorView(error)));
