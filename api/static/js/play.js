// A seat's live table: that seat's view, its legal commands as buttons (and a form for the
// offers it may make), kept current by polling the seat's event feed.
// URL: /play/<id>#token=… (the token is then kept in this browser) or /play/<id>#seat=N.

import { api, errorView } from "./api.js";
import { beansText, card, coinsFor, label, loadBeans } from "./beans.js";
import { fill, h, plural } from "./dom.js";
import { renderTable, statusText } from "./table.js";
import { adoptToken, fragment, perspectiveKey, storedTokens, takeFragmentToken } from "./tokens.js";

const main = document.querySelector("main");
const gameId = main.dataset.game;
const base = `/api/games/${gameId}`;
const app = document.getElementById("app");
const POLL_MS = 1500;
const ORDER = ["plant", "reveal", "draw", "end-trading", "offer-rest", "accept", "decline", "withdraw", "harvest", "buy-field", "discard-offered", "discard-from-hand"];

const state = {
  token: null,
  seat: null,
  view: null,
  ruleset: null,
  log: [],
  seen: 0,
  draft: null,
  draftFor: null,
  message: null,
  busy: false,
};
const ui = {};

// --- which seat -----------------------------------------------------------------------------------

async function chooseSeat() {
  const fromLink = takeFragmentToken();
  if (fromLink) {
    const viewer = await adoptToken(gameId, fromLink);
    return perspectiveKey(viewer);
  }
  const tokens = storedTokens(gameId);
  const asked = fragment().get("seat");
  if (asked !== null && tokens[`seat-${asked}`]) return `seat-${asked}`;
  const remembered = window.sessionStorage.getItem(`bohnanza.play.${gameId}`);
  if (remembered && tokens[remembered]) return remembered;
  const seats = Object.keys(tokens).filter((key) => key.startsWith("seat-"));
  return seats.length === 1 ? seats[0] : null;
}

function askForToken(problem = null) {
  const input = h("input", { id: "seat-token", type: "password", autocomplete: "off", required: true });
  const message = h("div", {}, problem);
  const tokens = Object.keys(storedTokens(gameId)).filter((key) => key.startsWith("seat-"));
  const form = h(
    "form",
    { class: "panel setup" },
    h("p", {}, "Open your seat with the link you were given, or paste your seat's token."),
    h("p", { class: "field-row" }, h("label", { for: "seat-token" }, "Seat token"), input),
    h("button", { type: "submit", class: "primary" }, "Open my table"),
    tokens.length ? h("p", {}, "Or: ", tokens.map((key) => h("a", { href: `#seat=${key.slice(5)}`, onclick: () => setTimeout(() => window.location.reload()) }, ` seat ${Number(key.slice(5)) + 1} `))) : null,
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const viewer = await adoptToken(gameId, input.value.trim());
      if (viewer.kind !== "seat") throw new Error("That is the host's token: record with it on the recorder page.");
      window.sessionStorage.setItem(`bohnanza.play.${gameId}`, perspectiveKey(viewer));
      window.location.reload();
    } catch (error) {
      fill(message, errorView(error));
    }
  });
  fill(app, form);
  main.dataset.ready = "true";
}

// --- reading --------------------------------------------------------------------------------------

/** Read the feed on from the last event seen (up to position `until`); whether any came. */
async function readFeed(until = Infinity) {
  let more = true;
  let fresh = false;
  while (more && state.seen < until) {
    const limit = Math.min(200, until - state.seen);
    const page = await api(`${base}/events`, { token: state.token, query: { after: state.seen, limit } });
    for (const item of page.items) {
      state.log.push({ position: item.position, text: item.summary });
      state.seen = item.position;
      fresh = true;
    }
    more = page.next_after !== null;
  }
  state.log = state.log.slice(-30);
  return fresh;
}

async function poll() {
  if (state.busy || document.hidden) return;
  try {
    if (await readFeed()) {
      state.view = await api(`${base}/view`, { token: state.token });
      render();
    }
  } catch {
    // The next poll tries again.
  }
}

// --- acting ---------------------------------------------------------------------------------------

async function send(command) {
  if (state.busy) return;
  state.busy = true;
  try {
    const result = await api(`${base}/commands`, { method: "POST", token: state.token, body: command });
    state.view = result.view;
    const first = result.events.length ? result.events[0].position : result.version + 1;
    await readFeed(first - 1); // what other seats did since the last poll, before this command
    for (const item of result.events) state.log.push({ position: item.position, text: item.summary });
    state.seen = Math.max(state.seen, result.version);
    state.message = null;
    state.draft = null;
  } catch (error) {
    state.message = error;
  } finally {
    state.busy = false;
  }
  render();
}

/** The cards a command gives, saying where each comes from: two Accept buttons for the same
 * beans may give different cards (hand positions, or a face-up card instead of a hand card). */
function cardsGiven(command, view) {
  const hand = view.seats[state.seat].hand ?? [];
  const parts = [
    ...(command.hand ?? []).map((position) => `${label(hand[position])} (hand card ${position + 1})`),
    ...(command.revealed ?? []).map((bean) => `${label(bean)} (face up)`),
    ...(command.trade_area ?? []).map((bean) => `${label(bean)} (trade area)`),
  ];
  return parts.length ? parts.join(", ") : "nothing";
}

/** A legal command in words. */
function commandText(command, view) {
  const me = view.seats[state.seat];
  const offer = (id) => view.offers.find((o) => o.id === id);
  switch (command.type) {
    case "plant": {
      const bean = command.bean ?? me.hand[0];
      return `Plant ${label(bean)}${command.bean ? "" : " (front card)"} in field ${command.field + 1}`;
    }
    case "harvest": {
      const field = me.fields[command.field];
      return `Harvest field ${command.field + 1} (${field.count} ${label(field.bean)}) → ${plural(coinsFor(field.bean, field.count), "coin")}`;
    }
    case "buy-field":
      return `Buy a third field (${plural(state.ruleset.third_field_cost, "coin")})`;
    case "reveal":
      return `Turn up ${plural(state.ruleset.reveal, "card")}`;
    case "draw":
      return `Draw ${plural(state.ruleset.draw, "card")}`;
    case "end-trading":
      return "End trading";
    case "accept": {
      const open = offer(command.offer);
      return `Accept #${command.offer}: give ${cardsGiven(command, view)}, get ${beansText(open?.gives ?? [])}`;
    }
    case "decline":
      return `Decline #${command.offer}`;
    case "withdraw":
      return `Withdraw offer #${command.offer}`;
    case "discard-offered":
      return `Discard the offered ${label(command.bean)}`;
    case "discard-from-hand":
      return `Discard ${label(me.hand[command.position])} (hand ${command.position + 1})`;
    case "offer-rest":
      return "Offer the rest to the other player";
    default:
      return command.type;
  }
}

// --- the page -------------------------------------------------------------------------------------

function layout() {
  ui.status = h("p", { id: "turn-status", "aria-live": "polite" });
  ui.message = h("div", { id: "play-message", "aria-live": "assertive" });
  ui.actions = h("div", { id: "actions" });
  ui.table = h("div", { id: "table" });
  ui.log = h("ol", { class: "log", id: "log", "aria-label": "Last events" });
  fill(
    app,
    ui.status,
    h(
      "div",
      { class: "play-grid" },
      h("div", { class: "play-table" }, ui.table),
      h("section", { class: "panel play-actions", "aria-labelledby": "actions-title" }, h("h2", { id: "actions-title" }, "Your moves"), ui.message, ui.actions),
      h("section", { class: "panel play-log", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Last events"), ui.log),
    ),
  );
}

function render() {
  const view = state.view;
  const me = view.seats[state.seat];
  const focused = document.activeElement?.dataset?.key;
  const mine = view.active_seat === state.seat && view.phase !== "ended";
  fill(
    ui.status,
    view.phase === "ended"
      ? h("span", { class: "waiting" }, statusText(view))
      : mine
        ? h("span", { class: "your-turn" }, `Your turn, ${me.name}`)
        : h("span", { class: "waiting" }, `${view.seats[view.active_seat].name}'s turn${view.legal?.commands.length || view.legal?.offer ? ": you may act too" : ""}`),
  );
  fill(ui.table, renderTable(view, { viewerFirst: true }));
  fill(ui.message, state.message ? errorView(state.message) : null);
  fill(ui.actions, actionsView());
  fill(ui.log, [...state.log].reverse().slice(0, 12).map((line) => h("li", {}, h("span", { class: "pos" }, String(line.position)), line.text)));
  if (focused) ui.actions.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  main.dataset.version = String(view.version);
}

function actionsView() {
  const view = state.view;
  const legal = view.legal;
  if (!legal) {
    return view.phase === "ended"
      ? h("p", {}, "The game is over. ", h("a", { href: `/games/${gameId}/replay?step=1&perspective=seat-${state.seat}` }, "Replay it"))
      : h("p", { class: "muted" }, "Nothing to do.");
  }
  const commands = [...legal.commands].sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type));
  const groups = new Map();
  for (const command of commands) {
    const group = ["accept", "decline", "withdraw"].includes(command.type) ? "answers" : ["harvest", "buy-field"].includes(command.type) ? "fields" : "turn";
    groups.set(group, [...(groups.get(group) ?? []), command]);
  }
  const buttons = (list) =>
    h(
      "div",
      { class: "legal-group" },
      list.map((command, i) =>
        h(
          "button",
          {
            type: "button",
            class: ["legal", ["reveal", "draw", "end-trading"].includes(command.type) && "primary"],
            "data-command-type": command.type,
            "data-key": `${command.type}-${JSON.stringify(command)}`,
            "data-index": i,
            onclick: () => send(command),
          },
          commandText(command, view),
        ),
      ),
    );
  const parts = [];
  if (groups.has("turn")) parts.push(buttons(groups.get("turn")));
  if (groups.has("answers")) parts.push(h("h3", {}, "Offers to answer"), buttons(groups.get("answers")));
  if (legal.offer) parts.push(offerForm(legal.offer));
  if (groups.has("fields")) parts.push(h("h3", {}, "Harvest or buy"), buttons(groups.get("fields")));
  if (!parts.length) {
    const active = view.seats[view.active_seat].name;
    parts.push(h("p", { class: "muted", id: "nothing-to-do" }, `Nothing to do now: waiting for ${active}.`));
  }
  return parts;
}

function offerForm(range) {
  const view = state.view;
  const me = view.seats[state.seat];
  const key = JSON.stringify(range);
  if (state.draftFor !== key || !state.draft) {
    state.draftFor = key;
    state.draft = { to: range.to[0], hand: [], revealed: [], area: [], wants: [] };
  }
  const draft = state.draft;
  const toggle = (list, value) => {
    const at = list.indexOf(value);
    if (at >= 0) list.splice(at, 1);
    else list.push(value);
    render();
  };
  const chip = (bean, pressed, onclick, dataKey, note) =>
    h("button", { type: "button", class: ["card", `bean-${bean}`], "aria-pressed": String(pressed), "data-key": dataKey, onclick }, label(bean), h("span", { class: "card-note" }, note));
  const submit = () =>
    send({
      type: "offer",
      to: draft.to,
      hand: [...draft.hand].sort((a, b) => a - b),
      revealed: draft.revealed.map((i) => range.revealed[i]),
      trade_area: draft.area.map((i) => range.trade_area[i]),
      wants: draft.wants,
    });
  return h(
    "section",
    { class: "offer-form", id: "offer-form", "aria-labelledby": "offer-title" },
    h("h3", { id: "offer-title" }, "Make an offer"),
    h(
      "div",
      { class: "inline" },
      h("span", { class: "hint" }, "To"),
      range.to.map((seat) =>
        h(
          "button",
          { type: "button", "aria-pressed": String(draft.to === seat), "data-key": `offer-to-${seat}`, onclick: () => ((draft.to = seat), render()) },
          view.seats[seat].name,
        ),
      ),
    ),
    h("p", { class: "hint" }, "You give:"),
    h(
      "div",
      { class: "chips" },
      range.hand.map((position) => chip(me.hand[position], draft.hand.includes(position), () => toggle(draft.hand, position), `give-hand-${position}`, `hand ${position + 1}`)),
      range.revealed.map((bean, i) => chip(bean, draft.revealed.includes(i), () => toggle(draft.revealed, i), `give-up-${i}`, "face up")),
      range.trade_area.map((bean, i) => chip(bean, draft.area.includes(i), () => toggle(draft.area, i), `give-area-${i}`, "trade area")),
    ),
    h("p", { class: "hint" }, "You want:"),
    h(
      "div",
      { class: "palette", role: "group", "aria-label": "Beans wanted" },
      range.wants.map((bean) =>
        h("button", { type: "button", class: ["card", `bean-${bean}`], "data-key": `want-${bean}`, "data-bean": bean, onclick: () => (draft.wants.push(bean), render()) }, label(bean)),
      ),
    ),
    h(
      "p",
      { class: "inline" },
      draft.wants.length
        ? draft.wants.map((bean, i) => chip(bean, false, () => (draft.wants.splice(i, 1), render()), `wanted-${i}`, "remove"))
        : h("span", { class: "muted" }, "nothing: a gift"),
    ),
    h(
      "button",
      { type: "button", class: "primary", id: "make-offer", "data-key": "make-offer", onclick: submit, disabled: !(draft.hand.length || draft.revealed.length || draft.area.length || draft.wants.length) },
      `Offer to ${view.seats[draft.to].name}`,
    ),
  );
}

// --- start ----------------------------------------------------------------------------------------

async function start() {
  await loadBeans();
  let key;
  try {
    key = await chooseSeat();
  } catch (error) {
    askForToken(errorView(error));
    return;
  }
  if (!key || !key.startsWith("seat-")) {
    askForToken(key === "host" ? h("p", { class: "message warning" }, "That is the host's token: use it on the recorder page.") : null);
    return;
  }
  window.sessionStorage.setItem(`bohnanza.play.${gameId}`, key);
  state.token = storedTokens(gameId)[key];
  state.seat = Number(key.slice(5));
  try {
    const [view, first] = await Promise.all([
      api(`${base}/view`, { token: state.token }),
      api(`${base}/events`, { token: state.token, query: { after: 0, limit: 1 } }),
    ]);
    state.view = view;
    state.ruleset = first.items[0].event.ruleset;
    state.seen = Math.max(0, view.version - 12);
    await readFeed();
  } catch (error) {
    askForToken(errorView(error));
    return;
  }
  const me = state.view.seats[state.seat];
  document.getElementById("title").textContent = `${me.name}'s table`;
  document.title = `${me.name}'s table · Bohnanza records`;
  layout();
  render();
  window.setInterval(poll, POLL_MS);
  main.dataset.ready = "true";
}

// A seat's link pasted into this tab changes only the fragment: start again with its token.
window.addEventListener("hashchange", () => window.location.reload());
start().catch((error) => fill(app, errorView(error)));
