// The replay viewer: the table at any step of a game, as a chosen viewer saw it; a game still
// being played is followed live (one connection, live.js) and the viewer moves with it while it
// shows the last step.
// URL: /games/<id>/replay?step=K&perspective=public|auditor|seat-N|host (never a token; a
// seat's or the host's perspective needs its token in this browser, e.g. from #token=…).
//
// Hooks for other modules: `stepMarks` (steplist.js) marks steps in the list, and
// `#view-options` holds switches that change what the table shows.

import { ApiError, api, errorView } from "./api.js";
import { loadBeans } from "./beans.js";
import { changedPaths } from "./changes.js";
import { coinChart, coinTable } from "./chart.js";
import { fill, h, plural, say, typing } from "./dom.js";
import { Lineage } from "./lineage.js";
import { follow } from "./live.js";
import { NotesPanel } from "./notes.js";
import { NumbersPanel } from "./numbers.js";
import { StepList, stepMarks } from "./steplist.js";
import { phaseText, renderTable } from "./table.js";
import { adoptToken, perspectiveKey, rememberSeatLinks, rememberTokens, storedTokens, takeFragmentToken } from "./tokens.js";

const main = document.querySelector("main");
const gameId = main.dataset.game;
const base = `/api/games/${gameId}`;
const app = document.getElementById("app");

const KINDS = [
  ["FieldHarvested", "harvest"],
  ["TradeAccepted", "trade"],
  ["TradeOffered", "offer"],
  ["ThirdFieldBought", "third field"],
  ["DiscardsReshuffled", "reshuffle"],
  ["TurnEnded", "turn end"],
];
const KEYS = [
  [["←", "→"], "previous or next step"],
  [["PgUp", "PgDn"], "first step of the previous or next turn"],
  [["Home", "End"], "first or last step"],
  [["↑", "↓"], "previous or next step, in the step list"],
  [["?"], "show or hide these keys"],
];

const state = {
  summary: null,
  steps: [],
  over: false,
  openToAll: false, // over, and so is every game it was forked from: every card is shown
  position: 1,
  perspective: "public",
  cache: new Map(),
  request: 0,
  timeline: null,
  live: null, // the stream's controller while the game is followed
  lastView: null, // the newest view the stream brought: {position, view}
  corrections: 0, // a tabletop game's corrections (its steps are those of the game as corrected)
  asRecorded: false, // show what was entered, in order, each correction a step
};
const ui = {};

function tokenOf(perspective) {
  return perspective === "public" || perspective === "auditor" ? null : storedTokens(gameId)[perspective] ?? null;
}

function asked(perspective = state.perspective) {
  const query = perspective === "auditor" ? { perspective: "auditor" } : {};
  if (state.asRecorded) query.as = "recorded";
  return { token: tokenOf(perspective), query };
}

function perspectiveName(key) {
  if (key === "public") return "Public (spectator)";
  if (key === "auditor") return "Auditor (every card)";
  if (key === "host") return "Host";
  const seat = Number(key.slice("seat-".length));
  return `${state.summary.seats[seat] ?? key}'s view (seat ${seat + 1})`;
}

function linkFor(position, perspective = state.perspective) {
  const url = new URL(window.location.pathname, window.location.origin);
  url.searchParams.set("step", position);
  url.searchParams.set("perspective", perspective);
  return url.toString();
}

function lastTurn() {
  return state.steps.at(-1)?.turn ?? 0;
}

// --- layout -------------------------------------------------------------------------------------

function button(label, onclick, attributes = {}) {
  return h("button", { type: "button", onclick, ...attributes }, label);
}

function keysHelp() {
  ui.keys = h(
    "details",
    { class: "keys-help", id: "keys" },
    h("summary", {}, "Keys: ", h("kbd", {}, "←"), " ", h("kbd", {}, "→"), " step · ", h("kbd", {}, "PgUp"), " ", h("kbd", {}, "PgDn"), " turn · ", h("kbd", {}, "?"), " all keys"),
    h(
      "dl",
      {},
      KEYS.map(([keys, meaning]) => [h("dt", {}, keys.map((key, i) => [i ? " " : "", h("kbd", {}, key)])), h("dd", {}, meaning)]),
    ),
  );
  return ui.keys;
}

function build() {
  ui.scrubber = h("input", {
    type: "range",
    id: "turn-scrubber",
    min: state.steps[0].turn,
    max: lastTurn(),
    step: 1,
    value: 0,
    "aria-label": "Turn",
    oninput: () => go(turnStart(Number(ui.scrubber.value))),
  });
  ui.where = h("output", { id: "where", for: "turn-scrubber", "aria-live": "polite" });
  ui.live = h("span", { id: "live-status" });
  ui.turn = h("input", { type: "number", id: "turn", min: 0, max: lastTurn(), inputmode: "numeric", required: true });
  ui.kind = h("select", { id: "kind", "aria-label": "Kind of step" }, KINDS.map(([kind, name]) => h("option", { value: kind }, name)));
  ui.perspective = h("select", { id: "perspective", onchange: () => choosePerspective(ui.perspective.value) });
  ui.token = h("input", { type: "password", id: "token", autocomplete: "off", placeholder: "bzt_…", spellcheck: "false" });
  ui.link = h("a", { id: "deep-link", href: "#" }, "Link to this step");
  ui.record = h("span", { id: "record" });
  ui.message = h("div", { id: "message", "aria-live": "polite" });
  ui.summary = h("p", { id: "summary", class: "summary", "aria-live": "polite" });
  ui.heading = h("p", { id: "step-heading", class: "muted" });
  ui.table = h("div", { id: "table" });
  ui.chart = h("div", { id: "chart" });
  ui.steps = new StepList({ names: state.summary.seats, duel: state.summary.players === 2, linkFor: (position) => linkFor(position), onPick: (position) => go(position) });
  ui.steps.element.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      go(state.position + (event.key === "ArrowDown" ? 1 : -1), { focusList: true });
    }
  });
  ui.notes = new NotesPanel({
    base,
    names: state.summary.seats,
    tokenOf,
    perspective: () => state.perspective,
    position: () => state.position,
    over: () => state.over,
    changed: async () => {
      state.cache.delete(detailKey(state.position, state.perspective));
      await loadNoteIndex();
      await show();
    },
  });
  ui.stepsTitle = h("h2", { id: "steps-title" });
  ui.numbers = new NumbersPanel({ base, ask: () => asked() });

  fill(
    app,
    h(
      "section",
      { class: "stepper", "aria-label": "Step through the game" },
      h(
        "div",
        { class: "buttons", role: "group", "aria-label": "Move through the steps" },
        button("« First", () => go(1), { id: "first", title: "First step (Home)" }),
        button("‹ Previous", () => go(state.position - 1), { id: "previous", title: "Previous step (←)" }),
        button("Next ›", () => go(state.position + 1), { id: "next", title: "Next step (→)" }),
        button("Last »", () => go(state.steps.length), { id: "last", title: "Last step (End)" }),
      ),
      h("div", { class: "scrubber" }, ui.scrubber, ui.where, ui.live),
    ),
    keysHelp(),
    h(
      "section",
      { class: "controls", "aria-label": "Find a step, choose whose view" },
      h(
        "div",
        { class: "row" },
        h("form", { class: "inline", onsubmit: jumpToTurn }, h("label", { for: "turn" }, "Turn"), ui.turn, h("button", { type: "submit", id: "go-turn" }, "Go")),
        h(
          "div",
          { class: "inline", role: "group", "aria-label": "Find a step of a kind" },
          h("label", { for: "kind" }, "Find"),
          ui.kind,
          button("‹", () => jumpToKind("previous"), { "aria-label": "Previous of this kind", id: "kind-previous" }),
          button("›", () => jumpToKind("next"), { "aria-label": "Next of this kind", id: "kind-next" }),
        ),
        h("div", { class: "inline" }, h("label", { for: "perspective" }, "Seen by"), ui.perspective),
        h(
          "details",
          { class: "token-form" },
          h("summary", {}, "Add a token"),
          h("form", { class: "inline", onsubmit: useToken }, h("label", { for: "token" }, "Token"), ui.token, h("button", { type: "submit", id: "use-token" }, "Use")),
        ),
        h("div", { class: "inline" }, ui.link, ui.record),
      ),
      h("div", { id: "view-options", class: "row" }),
    ),
    ui.message,
    h("div", { class: "step-info" }, ui.heading, ui.summary),
    h(
      "div",
      { class: "replay-layout" },
      h(
        "div",
        { class: "replay-main" },
        h("h2", { class: "visually-hidden" }, "The table at this step"),
        ui.table,
        h("section", { class: "panel", "aria-labelledby": "chart-title" }, h("h2", { id: "chart-title" }, "Coins by turn"), ui.chart),
        h("section", { class: "panel", "aria-label": "The game in numbers" }, ui.numbers.element),
      ),
      h(
        "aside",
        { class: "replay-side", "aria-label": "Steps and notes" },
        h("section", { class: "panel", "aria-labelledby": "steps-title" }, ui.stepsTitle, ui.steps.element),
        h("section", { class: "panel", "aria-labelledby": "notes-title" }, h("h2", { id: "notes-title" }, "Notes on this step"), ui.notes.element),
      ),
    ),
  );
  ui.steps.fill(state.steps);
  fillPerspectives();
  showRecordOffer();
}

function fillPerspectives() {
  const keys = ["public", "auditor", ...Object.keys(storedTokens(gameId)).sort()];
  if (!keys.includes(state.perspective)) keys.push(state.perspective);
  // Every card is shown once the game (and every game it was forked from) is over: before, the
  // auditor is listed but not offered.
  const closed = (key) => key === "auditor" && !state.openToAll;
  fill(
    ui.perspective,
    keys.map((key) =>
      h(
        "option",
        { value: key, selected: key === state.perspective, disabled: closed(key) && key !== state.perspective },
        closed(key) ? `${perspectiveName(key)}, ${state.over ? "once the game it was forked from is over" : "once the game is over"}` : perspectiveName(key),
      ),
    ),
  );
}

/** The record names every card: offered once it is open to all, and said so before. */
function showRecordOffer() {
  const play = state.over && !state.summary.sandbox;
  fill(
    ui.record,
    state.openToAll
      ? button("Export record", exportRecord, { id: "export" })
      : h("span", { class: "muted", id: "export-later" }, state.over ? "The record opens once the game it was forked from is over." : "The record opens once the game is over."),
    play ? [" ", button("BG Stats play", () => downloadPlay("bgstats"), { id: "export-bgstats", title: "The game as a play to import into BG Stats" }), " ", button("BGG play", () => downloadPlay("bgg"), { id: "export-bgg", title: "The game as BoardGameGeek's play log (XML)" })] : null,
    state.openToAll ? [" ", button("Fork from this step", forkHere, { id: "fork-here", title: "A what-if game going on from this step, entered on the recorder page" })] : null,
  );
}

/** A what-if fork from the step shown (open to all, so every hand is known): a tabletop game
 *  whose host token this browser keeps, opened on the recorder page to go on from there. */
async function forkHere(event) {
  if (state.asRecorded) {
    say(ui.message, "A fork goes on from a step of the game as corrected: turn off “As recorded” first.", "warning");
    return;
  }
  const trigger = event.currentTarget;
  trigger.disabled = true;
  try {
    const fork = await api(`${base}/forks`, { method: "POST", body: { step: state.position } });
    rememberTokens(fork.game_id, { host: fork.host_token });
    rememberSeatLinks(fork.game_id, fork.seats);
    window.location.assign(`/record#game=${fork.game_id}`);
  } catch (error) {
    trigger.disabled = false;
    fill(ui.message, errorView(error));
  }
}

/** A finished game as a play for BG Stats (JSON) or BoardGameGeek (XML), downloaded. */
async function downloadPlay(kind) {
  try {
    const response = await fetch(`${base}/plays/${kind}`, { cache: "no-store" });
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
    const type = kind === "bgg" ? "application/xml" : "application/json";
    const name = `bohnanza-${gameId}.${kind === "bgg" ? "bgg.xml" : "bgsplay"}`;
    const url = URL.createObjectURL(new Blob([await response.text()], { type }));
    const link = h("a", { href: url, download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say(ui.message, kind === "bgg" ? "The BoardGameGeek play was downloaded." : "The BG Stats play was downloaded: open it with BG Stats.", "ok");
  } catch (error) {
    fill(ui.message, errorView(error));
  }
}

// --- stepping -----------------------------------------------------------------------------------

function go(position, { focusList = false } = {}) {
  const target = Math.min(Math.max(1, position), state.steps.length);
  if (Number.isNaN(target)) return;
  state.position = target;
  showPosition(focusList);
  show();
}

function showPosition(focusList) {
  const step = state.steps[state.position - 1];
  const last = lastTurn();
  ui.scrubber.max = last;
  ui.scrubber.value = step.turn;
  ui.scrubber.setAttribute("aria-valuetext", `Turn ${step.turn} of ${last}`);
  ui.where.value = `Step ${state.position} of ${state.steps.length} · turn ${step.turn}`;
  ui.where.textContent = ui.where.value;
  ui.turn.max = last;
  ui.stepsTitle.textContent = `Steps (${state.steps.length})`;
  ui.steps.current(state.position, { focus: focusList });
  const link = linkFor(state.position);
  ui.link.href = link;
  window.history.replaceState(null, "", new URL(link).pathname + new URL(link).search);
  document.getElementById("first").disabled = state.position === 1;
  document.getElementById("previous").disabled = state.position === 1;
  document.getElementById("next").disabled = state.position === state.steps.length;
  document.getElementById("last").disabled = state.position === state.steps.length;
}

/** Where a step's answer for a reader is kept: by reader, game as recorded or corrected, step. */
function detailKey(position, perspective) {
  return `${perspective}|${state.asRecorded ? "recorded" : "corrected"}|${position}`;
}

async function detail(position, perspective) {
  const key = detailKey(position, perspective);
  if (!state.cache.has(key)) {
    const { token, query } = asked(perspective);
    const loading = api(`${base}/steps/${position}`, { token, query });
    state.cache.set(key, loading);
    loading.catch(() => state.cache.delete(key));
  }
  return state.cache.get(key);
}

function heading(step, view, perspective) {
  const actor = step.actor === null ? "" : ` · ${state.summary.seats[step.actor]}'s move`;
  return `Step ${step.position}: ${phaseText(view)}${actor} · seen by ${perspectiveName(perspective)}`;
}

async function show() {
  const request = ++state.request;
  const { position, perspective } = state;
  const live = state.lastView;
  if (live && live.position === position) {
    // The step the stream just brought: its table came with it, nothing to ask for.
    const step = state.steps[position - 1];
    ui.heading.textContent = heading(step, live.view, perspective);
    ui.summary.textContent = step.summary;
    fill(ui.table, renderTable(live.view, { changes: live.changes }));
    ui.notes.show(live.notes ?? []);
    drawChart();
    return;
  }
  let answer;
  try {
    answer = await detail(position, perspective);
  } catch (error) {
    if (request === state.request) fill(ui.message, errorView(error));
    return;
  }
  if (request !== state.request) return;
  ui.heading.textContent = heading(answer.step, answer.view, perspective);
  ui.summary.textContent = answer.summary;
  fill(ui.table, renderTable(answer.view, { changes: answer.changes }));
  ui.notes.show(answer.notes);
  drawChart();
  if (position < state.steps.length) detail(position + 1, perspective).catch(() => {});
}

function jumpTo(position, nothing) {
  if (position === null) {
    say(ui.message, nothing);
    return;
  }
  say(ui.message, "");
  go(position);
}

async function jumpToTurn(event) {
  event.preventDefault();
  try {
    const answer = await api(`${base}/jump`, { query: { turn: ui.turn.value } });
    jumpTo(answer.position, `There is no turn ${ui.turn.value} in this game.`);
  } catch (error) {
    fill(ui.message, errorView(error));
  }
}

async function jumpToKind(direction) {
  const name = ui.kind.selectedOptions[0].textContent;
  const answer = await api(`${base}/jump`, { query: { kind: ui.kind.value, direction, from: state.position } });
  jumpTo(answer.position, `No ${direction} ${name} from step ${state.position}.`);
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || typing(event)) return;
  if (event.target === ui.scrubber) return;
  const moves = {
    ArrowLeft: () => go(state.position - 1),
    ArrowRight: () => go(state.position + 1),
    Home: () => go(1),
    End: () => go(state.steps.length),
    PageUp: () => go(turnStart(state.steps[state.position - 1].turn - 1)),
    PageDown: () => go(turnStart(state.steps[state.position - 1].turn + 1)),
    "?": () => (ui.keys.open = !ui.keys.open),
  };
  const move = moves[event.key];
  if (!move) return;
  event.preventDefault();
  move();
}

/** The first step of `turn` (the first or last step beyond the game's turns). */
function turnStart(turn) {
  const step = state.steps.find((candidate) => candidate.turn === turn);
  if (step) return step.position;
  return turn < state.steps[0].turn ? 1 : state.steps.length;
}

// --- following a game as it is played -----------------------------------------------------------

function coinsOf(view) {
  return view.seats.map((seat) => seat.coins);
}

/** Bring the coin chart's figures on with new steps: a point for each turn that began, and the
 * last point ("now") at the newest step. */
function advanceTimeline(steps, view) {
  const timeline = state.timeline;
  if (!timeline) return;
  const points = timeline.points;
  const now = points.pop();
  let turn = points.at(-1)?.turn ?? 0;
  for (const step of steps) {
    if (step.turn > turn) {
      turn = step.turn;
      points.push({ turn, position: step.position, coins: coinsOf(view) });
    }
  }
  points.push({ ...now, turn, position: state.steps.length, coins: coinsOf(view) });
}

function onUpdate(update) {
  if (state.asRecorded) return; // the stream follows the game as corrected
  if (update.first_step !== null && update.first_step !== undefined && update.first_step <= state.steps.length && update.steps.length) {
    // A correction changed steps already listed: list them all again.
    Promise.all([loadSteps(), loadTimeline()]).then(() => {
      showPosition(false);
      drawChart();
    });
    return;
  }
  const known = state.steps.length;
  const fresh = update.steps.filter((step) => step.position > known);
  const following = state.position === known;
  if (fresh.length) {
    state.steps.push(...fresh);
    ui.steps.append(fresh);
    advanceTimeline(fresh, update.view);
    ui.numbers.refresh({ soon: true });
    ui.lineage.refresh({ soon: true });
  }
  if (!state.corrections && update.version !== state.steps.length) return; // the stream is behind the page's list
  const before = state.lastView?.view;
  state.lastView = { position: update.version, view: update.view, changes: before ? changedPaths(before, update.view) : [] };
  if (following && fresh.length) go(state.steps.length);
  else showPosition(false);
}

function onLiveStatus(status, error) {
  const text = { live: "● Live", reconnecting: "Reconnecting…", refused: "Not live", ended: "Game over" }[status];
  fill(ui.live, text ? h("span", { class: ["live-badge", status] }, text) : null);
  if (error) fill(ui.message, errorView(error));
}

async function onGameEnd() {
  onLiveStatus("ended");
  state.live = null;
  await Promise.all([loadSteps(), loadTimeline()]);
  fillPerspectives();
  showRecordOffer();
  ui.notes.update();
  ui.numbers.refresh();
  ui.lineage.refresh();
  showPosition(false);
  drawChart();
}

function followLive() {
  state.live?.stop();
  state.live = null;
  state.lastView = null;
  if (state.over) {
    fill(ui.live, null);
    return;
  }
  const { token, query } = asked();
  state.live = follow(gameId, { token, query, after: state.steps.length, onUpdate, onEnd: onGameEnd, onStatus: onLiveStatus });
}

// --- perspectives -------------------------------------------------------------------------------

async function loadSteps() {
  const answer = await api(`${base}/steps`, asked());
  state.steps = answer.steps;
  state.over = answer.over;
  state.openToAll = answer.open_to_all;
  state.corrections = answer.corrections;
  state.position = Math.min(state.position, state.steps.length);
  ui.steps?.fill(state.steps);
  showCorrectionSwitch();
}

// --- a corrected tabletop game: as corrected (marked) or as recorded ------------------------------

stepMarks.push((step) => {
  if (step.corrected) return h("span", { class: "badge corrected-badge", title: `changed by correction ${step.corrected}` }, `corrected #${step.corrected}`);
  if (step.kind === "EntriesCorrected") return h("span", { class: "badge corrected-badge" }, "correction");
  return null;
});

function showCorrectionSwitch() {
  const box = document.getElementById("view-options");
  if (!box) return;
  box.querySelector("#as-recorded-option")?.remove();
  if (!state.corrections) return;
  const input = h("input", { type: "checkbox", id: "as-recorded", checked: state.asRecorded });
  input.addEventListener("change", async () => {
    state.asRecorded = input.checked;
    state.position = 1;
    await Promise.all([loadSteps(), loadTimeline()]);
    if (state.asRecorded) {
      state.live?.stop();
      state.live = null;
    } else {
      followLive();
    }
    showPosition(false);
    await show();
  });
  box.append(
    h(
      "label",
      { id: "as-recorded-option", class: "switch", title: "By default the game is shown as corrected, each step a correction changed marked" },
      input,
      ` As recorded (${plural(state.corrections, "correction")}, each a step)`,
    ),
  );
}

async function choosePerspective(key) {
  const previous = state.perspective;
  let warning = "";
  if (key !== "public" && key !== "auditor" && !tokenOf(key)) {
    warning = `${perspectiveName(key)} needs that seat's token in this browser; showing the public view.`;
    key = "public";
  }
  try {
    await detail(state.position, key);
  } catch (error) {
    fill(ui.message, errorView(error));
    key = previous === key ? "public" : previous;
    warning = null;
  }
  if (warning !== null) say(ui.message, warning, "warning");
  state.perspective = key;
  await Promise.all([loadSteps(), loadTimeline(), loadNoteIndex()]);
  ui.numbers.refresh();
  fillPerspectives();
  ui.steps.relink((position) => linkFor(position));
  showPosition(false);
  ui.notes.update();
  followLive();
  await show();
}

async function useToken(event) {
  event.preventDefault();
  const token = ui.token.value.trim();
  if (!token) return;
  try {
    const viewer = await adoptToken(gameId, token);
    ui.token.value = "";
    await choosePerspective(perspectiveKey(viewer));
  } catch (error) {
    fill(ui.message, errorView(error));
  }
}

// --- chart, notes, export -----------------------------------------------------------------------

async function loadTimeline() {
  try {
    state.timeline = await api(`${base}/timeline`, asked());
  } catch (error) {
    state.timeline = null;
    fill(ui.chart, errorView(error));
  }
}

function drawChart() {
  if (!state.timeline) return;
  const options = { position: state.position, onPick: (position) => go(position), over: state.over };
  const open = document.getElementById("coin-table")?.open;
  const table = coinTable(state.timeline, options);
  if (table && open) table.open = true;
  fill(ui.chart, coinChart(state.timeline, options), table);
}

async function loadNoteIndex() {
  const noted = new Map();
  try {
    const answer = await api(`${base}/annotations`, asked());
    for (const note of answer.notes) noted.set(note.step, [...(noted.get(note.step) ?? []), note]);
  } catch {
    // The notes stay unmarked in the list; the step's own notes still show.
  }
  state.noted = noted;
  ui.steps?.notes(noted);
}

async function exportRecord() {
  try {
    const record = await api(`${base}/record`, { token: tokenOf(state.perspective) });
    const blob = new Blob([JSON.stringify(record, null, 2)], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: `bohnanza-${gameId}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say(ui.message, "The record was downloaded.", "ok");
  } catch (error) {
    fill(ui.message, errorView(error));
  }
}

// --- start --------------------------------------------------------------------------------------

function subtitle() {
  const summary = state.summary;
  const status = summary.status === "ended" ? `ended after ${plural(summary.turn, "turn")}, won by ${summary.result.winners.map((seat) => summary.seats[seat]).join(" and ")}` : "being played";
  return `${summary.ruleset} · ${summary.players} players · ${summary.mode} · ${status}`;
}

async function start() {
  await loadBeans();
  const params = new URLSearchParams(window.location.search);
  let perspective = params.get("perspective") ?? "public";
  let notice = null;
  const token = takeFragmentToken();
  if (token) {
    try {
      const viewer = await adoptToken(gameId, token);
      if (!params.get("perspective")) perspective = perspectiveKey(viewer);
    } catch (error) {
      notice = errorView(error);
    }
  }
  if (!/^(public|auditor|host|seat-\d+)$/.test(perspective)) perspective = "public";
  try {
    state.summary = await api(base);
    await loadSteps();
  } catch (error) {
    document.getElementById("subtitle").textContent = "";
    fill(app, errorView(error));
    return;
  }
  const summary = state.summary;
  document.getElementById("title").textContent = `Replay: ${summary.seats.join(", ")}`;
  document.title = `Replay: ${summary.seats.join(", ")} · Bohnanza records`;
  document.getElementById("subtitle").textContent = subtitle();
  ui.lineage = new Lineage({ base, names: summary.seats });
  document.getElementById("subtitle").after(ui.lineage.element);
  const lineage = ui.lineage.load();
  // A finished game is read from its start; a running one is watched from its newest step, so
  // that the page follows the game as it is played (a step in the link overrides either).
  const opening = summary.status === "ended" ? 1 : state.steps.length;
  state.position = Math.min(Math.max(1, Number(params.get("step")) || opening), state.steps.length);
  build();
  ui.notes.update();
  if (notice) fill(ui.message, notice);
  document.addEventListener("keydown", onKey);
  showPosition(false);
  if (perspective === "public") {
    await Promise.all([loadTimeline(), loadNoteIndex()]);
    followLive();
    await show();
  } else {
    await choosePerspective(perspective);
  }
  await lineage;
  main.dataset.ready = "true";
}

start().catch((error) => {
  fill(app, errorView(error instanceof ApiError ? error : new Error(String(error))));
});
