// A seat's live table: that seat's view, its legal commands as buttons (and a form for the
// offers it may make), kept current by the game's live stream (one connection, live.js).
// URL: /play/<id>#token=… (the token is then kept in this browser) or /play/<id>#seat=N.

import { api, errorView } from "./api.js";
import { beansText, coinsFor, label, loadBeans } from "./beans.js";
import { confirmAction } from "./confirm.js";
import { fill, h, plural } from "./dom.js";
import { markNew, newAtTheBack } from "./fresh.js";
import { follow } from "./live.js";
import { soundSwitch, turnNotice } from "./notify.js";
import { withRuleLinks } from "./rules.js";
import { renderTable, statusText } from "./table.js";
import { enableTapToPlant } from "./tapplant.js";
import { groupPlants, handCardText, notePanel, possibleBeans, revealPanel } from "./unseen.js";
import { adoptToken, fragment, perspectiveKey, storedTokens, takeFragmentToken } from "./tokens.js";
import { seatStatus } from "./waiting.js";

const main = document.querySelector("main");
const gameId = main.dataset.game;
const base = `/api/games/${gameId}`;
const app = document.getElementById("app");
const LOG_LINES = 12;
const ORDER = ["plant", "reveal", "draw", "end-trading", "offer-rest", "accept", "decline", "withdraw", "harvest", "buy-field", "discard-offered", "discard-from-hand"];

const state = {
  token: null,
  seat: null,
  view: null,
  ruleset: null,
  log: new Map(), // position → the step's line, as this seat saw it
  draft: null,
  draftFor: null,
  counter: null, // the offer a draft answers: sending it declines that offer first
  message: null,
  busy: false,
  waiting: false,
  fresh: { hand: 0, trade: 0 },
  choice: { key: null },
  title: document.title,
  unseen: { cards: [], open: false, reveal: [] }, // a game with unknown hands: the note, a reveal
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

// --- the game as it goes --------------------------------------------------------------------------

/** A newer view of the table: note which cards are new to this seat, then draw it. */
function take(view) {
  if (state.view && view.version < state.view.version) return;
  const before = state.view?.seats[state.seat];
  const after = view.seats[state.seat];
  if (before && (before.hand?.length !== after.hand?.length || before.trade_area.length !== after.trade_area.length)) {
    const hand = newAtTheBack(before.hand, after.hand);
    const trade = newAtTheBack(before.trade_area, after.trade_area);
    if (hand || trade) state.fresh = { hand, trade };
  }
  state.view = view;
}

function remember(steps) {
  for (const step of steps) state.log.set(step.position, step.summary);
  const positions = [...state.log.keys()].sort((a, b) => a - b);
  for (const position of positions.slice(0, -3 * LOG_LINES)) state.log.delete(position);
}

function onUpdate(update) {
  remember(update.steps);
  take(update.view);
  if (!state.busy) render();
}

function onStatus(status, error) {
  const text = { live: "● Live", reconnecting: "Reconnecting…", refused: "Not live", ended: "Game over" }[status];
  fill(ui.live, h("span", { class: ["live-badge", status] }, text));
  if (error) {
    state.message = error;
    render();
  }
}

// --- acting ---------------------------------------------------------------------------------------

/** Ask first where a slip would cost: a harvest worth no coin. */
async function confirmed(command) {
  if (command.type !== "harvest") return true;
  const field = state.view.seats[state.seat].fields[command.field];
  if (coinsFor(field.bean, field.count) > 0) return true;
  return confirmAction({
    question: `Harvest field ${command.field + 1} for 0 coins?`,
    detail: `Its ${plural(field.count, "card")} of ${label(field.bean)} go to the discard pile and earn nothing.`,
    yes: "Harvest for 0 coins",
    no: "Keep the field",
  });
}

/** Send one command; whether it was taken (a refusal is kept to show). */
async function perform(command) {
  const turn = state.view.turn;
  state.fresh = { hand: 0, trade: 0 }; // the seat acts: what was new is seen
  try {
    const result = await api(`${base}/commands`, { method: "POST", token: state.token, body: command });
    // The stream brings these lines too, in the seat's own words; until then, the answer's.
    remember(result.events.map((item) => ({ position: item.position, summary: `T${turn} ${item.summary}` })));
    take(result.view);
    state.message = null;
    return true;
  } catch (error) {
    state.message = error;
    return false;
  }
}

/** Send commands one after the other (stopping at a refusal), then show the table. */
async function send(...commands) {
  if (state.busy || !(await confirmed(commands[0]))) return;
  state.busy = true;
  try {
    for (const command of commands) {
      if (!(await perform(command))) break;
      state.draft = null;
      state.counter = null;
    }
  } finally {
    state.busy = false;
  }
  render();
}

/** Answer an offer with another: decline it (if it is still open), then send the new offer. */
function sendCounter(offer) {
  const decline = state.view.legal?.commands.find((c) => c.type === "decline" && c.offer === state.counter);
  return decline ? send(decline, offer) : send(offer);
}

/** The cards a command gives, saying where each comes from: two Accept buttons for the same
 * beans may give different cards (hand positions, or a face-up card instead of a hand card). */
function cardsGiven(command, view) {
  const hand = view.seats[state.seat].hand ?? [];
  const parts = [
    ...(command.hand ?? []).map((position, i) => `${label(command.hand_beans?.[i] ?? hand[position])} (hand card ${position + 1})`),
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
      return `Discard ${label(command.bean ?? me.hand[command.position])} (hand ${command.position + 1})`;
    case "offer-rest":
      return "Offer the rest to the other player";
    default:
      return command.type;
  }
}

// --- the page -------------------------------------------------------------------------------------

function layout() {
  ui.status = h("section", { id: "turn-status", class: "status-line", "aria-label": "Where the game stands", "aria-live": "polite" });
  ui.live = h("span", { id: "live-status", class: "live" });
  ui.message = h("div", { id: "play-message", "aria-live": "assertive" });
  ui.actions = h("div", { id: "actions" });
  ui.table = h("div", { id: "table" });
  ui.log = h("ol", { class: "log", id: "log", tabindex: 0, "aria-labelledby": "log-title" });
  fill(
    app,
    h("div", { class: "status-row" }, ui.status, h("div", { class: "status-tools" }, ui.live, soundSwitch())),
    h(
      "div",
      { class: "play-grid" },
      h("div", { class: "play-table" }, h("h2", { class: "visually-hidden" }, "The table"), ui.table),
      h("section", { class: "panel play-actions", "aria-labelledby": "actions-title" }, h("h2", { id: "actions-title" }, "Your moves"), ui.message, ui.actions),
      h("section", { class: "panel play-log", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Last events"), ui.log),
    ),
  );
}

function statusView(view) {
  const me = view.seats[state.seat];
  if (view.phase === "ended") return h("p", { class: "headline waiting" }, statusText(view));
  const status = seatStatus(view, state.seat);
  const whose = view.active_seat === state.seat ? "your turn" : `${view.seats[view.active_seat].name}'s turn`;
  const headline = status.mine && status.headline.startsWith("Your turn") ? status.headline.replace("Your turn", `Your turn, ${me.name}`) : status.headline;
  return [
    h("p", { class: ["headline", status.mine ? "your-turn" : "waiting"] }, headline),
    h("p", { class: "where muted" }, `Turn ${view.turn} · ${view.phase_text} · ${whose}`),
    status.why.length ? h("ul", { class: "why" }, status.why.map((line) => h("li", {}, withRuleLinks(line)))) : null,
  ];
}

function render() {
  const view = state.view;
  const focused = document.activeElement?.dataset?.key;
  const status = view.phase === "ended" ? { mine: false } : seatStatus(view, state.seat);
  turnNotice(state.title, status.mine, state.waiting);
  state.waiting = status.mine;
  fill(ui.status, statusView(view));
  drawTable();
  fill(ui.message, state.message ? errorView(state.message) : null);
  fill(ui.actions, actionsView());
  const lines = [...state.log].sort(([a], [b]) => b - a).slice(0, LOG_LINES);
  fill(ui.log, lines.map(([position, text]) => h("li", {}, h("span", { class: "pos" }, String(position)), text)));
  if (focused) document.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  main.dataset.version = String(view.version);
}

function drawTable() {
  const view = state.view;
  const table = renderTable(view, { viewerFirst: true });
  const mine = table.querySelector(`.seat[data-seat="${state.seat}"]`);
  markNew(mine?.querySelector(".open-hand"), state.fresh.hand);
  markNew(mine?.querySelector(".trade-area"), state.fresh.trade);
  enableTapToPlant(table, {
    view,
    seat: state.seat,
    commands: view.legal?.commands ?? [],
    choice: state.choice,
    plant: (command) => send(command),
    redraw: () => {
      drawTable();
      ui.table.querySelector("[aria-pressed='true'], .plant-here")?.focus();
    },
  });
  fill(ui.table, table);
}

function legalButton(command, view) {
  return h(
    "button",
    {
      type: "button",
      class: ["legal", ["reveal", "draw", "end-trading"].includes(command.type) && "primary"],
      "data-command-type": command.type,
      "data-key": `${command.type}-${JSON.stringify(command)}`,
      onclick: () => send(command),
    },
    commandText(command, view),
  );
}

function answersView(commands, legal) {
  const view = state.view;
  const byOffer = new Map();
  for (const command of commands) byOffer.set(command.offer, [...(byOffer.get(command.offer) ?? []), command]);
  return [...byOffer].map(([id, answers]) => {
    const offer = view.offers.find((candidate) => candidate.id === id);
    const mayCounter = offer && offer.to === state.seat && legal.offer?.to.includes(offer.proposer);
    return h(
      "div",
      { class: "legal-group answer", "data-offer": id },
      answers.map((command) => legalButton(command, view)),
      mayCounter
        ? h("button", { type: "button", class: "counter", "data-key": `counter-${id}`, onclick: () => startCounter(offer, legal.offer) }, `Counter #${id}…`)
        : null,
    );
  });
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
  const buttons = (list) => h("div", { class: "legal-group" }, list.map((command) => legalButton(command, view)));
  const parts = [];
  const unknown = view.hands === "unknown";
  if (unknown && legal.chance?.type === "reveal") {
    parts.push(revealPanel(view, legal.chance, state.unseen, { beans: state.ruleset.beans, redraw: render, send: (command) => send(command) }));
  }
  if (groups.has("turn") && unknown) {
    const plants = groups.get("turn").filter((command) => command.type === "plant");
    const rest = groups.get("turn").filter((command) => command.type !== "plant");
    if (plants.length) parts.push(groupPlants(view, state.seat, plants, (command) => legalButton(command, view)));
    if (rest.length) parts.push(buttons(rest));
  } else if (groups.has("turn")) parts.push(buttons(groups.get("turn")));
  if (groups.get("turn")?.some((command) => command.type === "plant")) {
    parts.push(h("p", { class: "hint" }, "Or tap a card on the table, then the field to plant it in."));
  }
  if (groups.has("answers")) parts.push(h("h3", {}, "Offers to answer"), answersView(groups.get("answers"), legal));
  if (legal.offer) parts.push(offerForm(legal.offer));
  if (groups.has("fields")) parts.push(h("h3", {}, "Harvest or buy"), buttons(groups.get("fields")));
  if (!parts.length) {
    const active = view.seats[view.active_seat].name;
    parts.push(h("p", { class: "muted", id: "nothing-to-do" }, `Nothing to do now: waiting for ${active}.`));
  }
  if (unknown) parts.push(notePanel(view, state.seat, state.unseen, { redraw: render, send: (command) => send(command) }));
  return parts;
}

function freshDraft(range) {
  return { to: range.to[0], hand: [], revealed: [], area: [], wants: [] };
}

/** A counter-offer: the offer's cards turned round, for the player to change and send. */
function startCounter(offer, range) {
  const me = state.view.seats[state.seat];
  const draft = { ...freshDraft(range), to: offer.proposer };
  const taken = new Set();
  for (const bean of offer.wants) {
    const position = range.hand.find((p) => me.hand[p] === bean && !taken.has(`h${p}`));
    if (position !== undefined) {
      taken.add(`h${position}`);
      draft.hand.push(position);
      continue;
    }
    const revealed = range.revealed.findIndex((b, i) => b === bean && !taken.has(`r${i}`));
    if (revealed >= 0) {
      taken.add(`r${revealed}`);
      draft.revealed.push(revealed);
    }
  }
  draft.wants = offer.gives.filter((bean) => range.wants.includes(bean));
  state.draft = draft;
  state.draftFor = JSON.stringify(range);
  state.counter = offer.id;
  render();
  document.getElementById("offer-form")?.scrollIntoView({ block: "nearest" });
  document.querySelector("[data-key='make-offer']")?.focus();
}

function offerForm(range) {
  const view = state.view;
  const me = view.seats[state.seat];
  const key = JSON.stringify(range);
  if (state.draftFor !== key || !state.draft) {
    state.draftFor = key;
    state.draft = freshDraft(range);
    state.counter = null;
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
  const unknown = view.hands === "unknown";
  draft.beans ??= {};
  const offer = () => {
    const hand = [...draft.hand].sort((a, b) => a - b);
    const body = {
      type: "offer",
      to: draft.to,
      hand,
      revealed: draft.revealed.map((i) => range.revealed[i]),
      trade_area: draft.area.map((i) => range.trade_area[i]),
      wants: draft.wants,
    };
    if (unknown && hand.length) body.hand_beans = hand.map((position) => draft.beans[position] ?? me.hand?.[position] ?? null);
    return body;
  };
  const beanFor = (position) =>
    h(
      "select",
      { "aria-label": `the bean of card ${position + 1}`, "data-key": `give-bean-${position}`, onchange: (event) => ((draft.beans[position] = event.target.value || null), render()) },
      h("option", { value: "" }, "which bean?"),
      possibleBeans(view, me.hand_piles[position]).map((bean) => h("option", { value: bean, selected: (draft.beans[position] ?? me.hand?.[position]) === bean }, label(bean))),
    );
  const countering = state.counter !== null && view.offers.some((o) => o.id === state.counter);
  return h(
    "section",
    { class: "offer-form", id: "offer-form", "aria-labelledby": "offer-title" },
    h("h3", { id: "offer-title" }, countering ? `Counter-offer to #${state.counter}` : "Make an offer"),
    countering
      ? h(
          "p",
          { class: "message info", id: "counter-note" },
          `Sending it declines #${state.counter} first. `,
          h("button", { type: "button", "data-key": "drop-counter", onclick: () => ((state.draft = freshDraft(range)), (state.counter = null), render()) }, "Start over"),
        )
      : null,
    h(
      "div",
      { class: "inline" },
      h("span", { class: "hint" }, "To"),
      range.to.map((seat) =>
        h("button", { type: "button", "aria-pressed": String(draft.to === seat), "data-key": `offer-to-${seat}`, onclick: () => ((draft.to = seat), render()) }, view.seats[seat].name),
      ),
    ),
    h("p", { class: "hint" }, "You give:"),
    h(
      "div",
      { class: "chips" },
      range.hand.map((position) =>
        unknown
          ? h(
              "span",
              { class: "given" },
              h("button", { type: "button", "aria-pressed": String(draft.hand.includes(position)), "data-key": `give-hand-${position}`, onclick: () => toggle(draft.hand, position) }, handCardText(view, state.seat, position)),
              draft.hand.includes(position) ? beanFor(position) : null,
            )
          : chip(me.hand[position], draft.hand.includes(position), () => toggle(draft.hand, position), `give-hand-${position}`, `hand ${position + 1}`),
      ),
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
      { class: "inline", id: "wanted" },
      draft.wants.length ? draft.wants.map((bean, i) => chip(bean, false, () => (draft.wants.splice(i, 1), render()), `wanted-${i}`, "remove")) : h("span", { class: "muted" }, "nothing: a gift"),
    ),
    h(
      "button",
      {
        type: "button",
        class: "primary",
        id: "make-offer",
        "data-key": "make-offer",
        onclick: () => (countering ? sendCounter(offer()) : send(offer())),
        disabled: !(draft.hand.length || draft.revealed.length || draft.area.length || draft.wants.length),
      },
      `${countering ? "Counter" : "Offer"} to ${view.seats[draft.to].name}`,
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
  let first;
  try {
    [state.view, first] = await Promise.all([api(`${base}/view`, { token: state.token }), api(`${base}/events`, { token: state.token, query: { after: 0, limit: 1 } })]);
    state.ruleset = first.items[0].event.ruleset;
  } catch (error) {
    askForToken(errorView(error));
    return;
  }
  const me = state.view.seats[state.seat];
  document.getElementById("title").textContent = `${me.name}'s table`;
  state.title = `${me.name}'s table · Bohnanza records`;
  document.title = state.title;
  layout();
  render();
  follow(gameId, { token: state.token, after: Math.max(0, state.view.version - LOG_LINES), onUpdate, onStatus, onEnd: () => onStatus("ended") });
  main.dataset.ready = "true";
}

// A seat's link pasted into this tab changes only the fragment: start again with its token.
window.addEventListener("hashchange", () => window.location.reload());
start().catch((error) => fill(app, errorView(error)));
