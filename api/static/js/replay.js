// The replay viewer: the table at any step of a game, as a chosen viewer saw it.
// URL: /games/<id>/replay?step=K&perspective=public|auditor|seat-N|host (never a token; a
// seat's or the host's perspective needs its token in this browser, e.g. from #token=…).

import { ApiError, api, errorView } from "./api.js";
import { loadBeans } from "./beans.js";
import { coinChart } from "./chart.js";
import { fill, h, plural, say, typing } from "./dom.js";
import { phaseText, renderTable } from "./table.js";
import { adoptToken, perspectiveKey, storedTokens, takeFragmentToken } from "./tokens.js";

const main = document.querySelector("main");
const gameId = main.dataset.game;
const base = `/api/games/${gameId}`;
const app = document.getElementById("app");

const GLYPHS = [
  ["", "no mark"],
  ["!", "! good move"],
  ["!!", "!! excellent"],
  ["?", "? mistake"],
  ["??", "?? blunder"],
  ["!?", "!? interesting"],
  ["?!", "?! dubious"],
];
const VISIBILITIES = [
  ["public", "everyone"],
  ["table", "the players and the host"],
  ["seat", "one seat"],
  ["author", "only me"],
];
const KINDS = [
  ["FieldHarvested", "harvest"],
  ["TradeAccepted", "trade"],
  ["TradeOffered", "offer"],
  ["ThirdFieldBought", "third field"],
  ["DiscardsReshuffled", "reshuffle"],
  ["TurnEnded", "turn end"],
];

const state = {
  summary: null,
  steps: [],
  turns: [],
  over: false,
  openToAll: false, // over, and so is every game it was forked from: every card is shown
  position: 1,
  perspective: "public",
  cache: new Map(),
  request: 0,
  timeline: null,
  noted: new Map(),
};
const ui = {};

function tokenOf(perspective) {
  return perspective === "public" || perspective === "auditor" ? null : storedTokens(gameId)[perspective] ?? null;
}

function asked(perspective = state.perspective) {
  return {
    token: tokenOf(perspective),
    query: perspective === "auditor" ? { perspective: "auditor" } : {},
  };
}

function perspectiveName(key) {
  if (key === "public") return "Public (spectator)";
  if (key === "auditor") return "Auditor (every card)";
  if (key === "host") return "Host";
  const seat = Number(key.slice("seat-".length));
  return `${state.summary.seats[seat] ?? key}'s view (seat ${seat + 1})`;
}

function linkFor(position, perspective) {
  const url = new URL(window.location.pathname, window.location.origin);
  url.searchParams.set("step", position);
  url.searchParams.set("perspective", perspective);
  return url.toString();
}

// --- layout -------------------------------------------------------------------------------------

function button(label, onclick, attributes = {}) {
  return h("button", { type: "button", onclick, ...attributes }, label);
}

function build() {
  const last = state.steps.length;
  ui.slider = h("input", {
    type: "range",
    id: "step-slider",
    min: 1,
    max: last,
    value: state.position,
    "aria-label": "Step",
    oninput: () => go(Number(ui.slider.value)),
  });
  ui.where = h("output", { id: "where", for: "step-slider", "aria-live": "polite" });
  ui.turn = h("input", { type: "number", id: "turn", min: 0, max: state.turns.at(-1) ?? 0, inputmode: "numeric", required: true });
  ui.kind = h("select", { id: "kind", "aria-label": "Kind of step" }, KINDS.map(([kind, name]) => h("option", { value: kind }, name)));
  ui.perspective = h("select", { id: "perspective", onchange: () => choosePerspective(ui.perspective.value) });
  ui.token = h("input", { type: "password", id: "token", autocomplete: "off", placeholder: "bzt_…", spellcheck: "false" });
  ui.link = h("a", { id: "deep-link", href: "#" }, "Link to this step");
  ui.message = h("div", { id: "message", "aria-live": "polite" });
  ui.summary = h("p", { id: "summary", class: "summary", "aria-live": "polite" });
  ui.heading = h("p", { id: "step-heading", class: "muted" });
  ui.table = h("div", { id: "table" });
  ui.chart = h("div", { id: "chart" });
  ui.notes = h("div", { id: "notes" });
  ui.noteForm = noteForm();
  ui.list = h(
    "ol",
    { id: "step-list", class: "step-list", "aria-label": "Steps" },
    state.steps.map((step) =>
      h(
        "li",
        { id: `step-${step.position}`, "data-position": step.position },
        h(
          "a",
          {
            href: linkFor(step.position, state.perspective),
            tabindex: -1,
            onclick: (event) => {
              event.preventDefault();
              go(step.position);
            },
          },
          h("span", { class: "pos" }, String(step.position)),
          " ",
          h("span", { class: "text" }, step.summary),
          h("span", { class: "glyph" }),
        ),
      ),
    ),
  );
  ui.list.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      go(state.position + (event.key === "ArrowDown" ? 1 : -1), { focusList: true });
    }
  });

  fill(
    app,
    h(
      "section",
      { class: "controls", "aria-label": "Step controls" },
      h(
        "div",
        { class: "row" },
        h(
          "div",
          { class: "buttons", role: "group", "aria-label": "Move through the steps" },
          button("« First", () => go(1), { id: "first", title: "First step (Home)" }),
          button("‹ Previous", () => go(state.position - 1), { id: "previous", title: "Previous step (←)" }),
          button("Next ›", () => go(state.position + 1), { id: "next", title: "Next step (→)" }),
          button("Last »", () => go(state.steps.length), { id: "last", title: "Last step (End)" }),
        ),
        h("div", { class: "slider" }, ui.slider, ui.where),
      ),
      h(
        "div",
        { class: "row" },
        h(
          "form",
          { class: "inline", onsubmit: jumpToTurn },
          h("label", { for: "turn" }, "Turn"),
          ui.turn,
          h("button", { type: "submit", id: "go-turn" }, "Go"),
        ),
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
          h(
            "form",
            { class: "inline", onsubmit: useToken },
            h("label", { for: "token" }, "Token"),
            ui.token,
            h("button", { type: "submit", id: "use-token" }, "Use"),
          ),
        ),
        h("div", { class: "inline" }, ui.link, button("Export record", exportRecord, { id: "export" })),
      ),
    ),
    ui.message,
    h("div", { class: "step-info" }, ui.heading, ui.summary),
    h(
      "div",
      { class: "replay-layout" },
      h(
        "div",
        { class: "replay-main" },
        ui.table,
        h("section", { class: "panel", "aria-labelledby": "chart-title" }, h("h2", { id: "chart-title" }, "Coins by turn"), ui.chart),
      ),
      h(
        "aside",
        { class: "replay-side" },
        h("section", { class: "panel", "aria-labelledby": "steps-title" }, h("h2", { id: "steps-title" }, `Steps (${state.steps.length})`), ui.list),
        h("section", { class: "panel", "aria-labelledby": "notes-title" }, h("h2", { id: "notes-title" }, "Notes on this step"), ui.notes, ui.noteForm),
      ),
    ),
  );
  fillPerspectives();
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
  ui.slider.value = state.position;
  ui.where.value = `Step ${state.position} of ${state.steps.length} · turn ${step.turn}`;
  ui.where.textContent = ui.where.value;
  for (const current of ui.list.querySelectorAll("li.current")) {
    current.classList.remove("current");
    current.querySelector("a").setAttribute("tabindex", "-1");
    current.querySelector("a").removeAttribute("aria-current");
  }
  const item = document.getElementById(`step-${state.position}`);
  item.classList.add("current");
  const anchor = item.querySelector("a");
  anchor.setAttribute("tabindex", "0");
  anchor.setAttribute("aria-current", "step");
  const list = ui.list;
  const top = item.offsetTop;
  if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top - list.clientHeight / 2;
  }
  if (focusList) anchor.focus({ preventScroll: true });
  const link = linkFor(state.position, state.perspective);
  ui.link.href = link;
  window.history.replaceState(null, "", new URL(link).pathname + new URL(link).search);
  document.getElementById("first").disabled = state.position === 1;
  document.getElementById("previous").disabled = state.position === 1;
  document.getElementById("next").disabled = state.position === state.steps.length;
  document.getElementById("last").disabled = state.position === state.steps.length;
}

async function detail(position, perspective) {
  const key = `${perspective}|${position}`;
  if (!state.cache.has(key)) {
    const { token, query } = asked(perspective);
    const loading = api(`${base}/steps/${position}`, { token, query });
    state.cache.set(key, loading);
    loading.catch(() => state.cache.delete(key));
  }
  return state.cache.get(key);
}

async function show() {
  const request = ++state.request;
  const { position, perspective } = state;
  let answer;
  try {
    answer = await detail(position, perspective);
  } catch (error) {
    if (request === state.request) fill(ui.message, errorView(error));
    return;
  }
  if (request !== state.request) return;
  const step = answer.step;
  const actor = step.actor === null ? "" : ` · ${state.summary.seats[step.actor]}'s move`;
  ui.heading.textContent = `Step ${step.position}: ${phaseText(answer.view)}${actor} · seen by ${perspectiveName(perspective)}`;
  ui.summary.textContent = answer.summary;
  fill(ui.table, renderTable(answer.view, { changes: answer.changes }));
  showNotes(answer.notes);
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
  if (event.target === ui.slider) return;
  const moves = {
    ArrowLeft: () => go(state.position - 1),
    ArrowRight: () => go(state.position + 1),
    Home: () => go(1),
    End: () => go(state.steps.length),
    PageUp: () => go(turnStart(-1)),
    PageDown: () => go(turnStart(1)),
  };
  const move = moves[event.key];
  if (!move) return;
  event.preventDefault();
  move();
}

/** The first step of the previous (-1) or next (+1) turn. */
function turnStart(direction) {
  const turn = state.steps[state.position - 1].turn + direction;
  const step = state.steps.find((candidate) => candidate.turn === turn);
  if (step) return step.position;
  return direction < 0 ? 1 : state.steps.length;
}

// --- perspectives -------------------------------------------------------------------------------

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
    state.perspective = previous === key ? "public" : previous;
    fillPerspectives();
    updateNoteForm();
    await Promise.all([loadTimeline(), loadNoteIndex()]);
    show();
    return;
  }
  say(ui.message, warning, "warning");
  state.perspective = key;
  fillPerspectives();
  for (const anchor of ui.list.querySelectorAll("a")) {
    anchor.href = linkFor(Number(anchor.parentElement.dataset.position), key);
  }
  showPosition(false);
  updateNoteForm();
  await Promise.all([loadTimeline(), loadNoteIndex()]);
  show();
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
  fill(ui.chart, coinChart(state.timeline, { position: state.position, onPick: (position) => go(position), over: state.over }));
}

async function loadNoteIndex() {
  state.noted = new Map();
  try {
    const answer = await api(`${base}/annotations`, asked());
    for (const note of answer.notes) {
      state.noted.set(note.step, [...(state.noted.get(note.step) ?? []), note]);
    }
  } catch {
    // The notes stay unmarked in the list; the step's own notes still show.
  }
  for (const item of ui.list.querySelectorAll("li.noted")) {
    item.classList.remove("noted");
    item.querySelector(".glyph").textContent = "";
  }
  for (const [step, notes] of state.noted) {
    const item = document.getElementById(`step-${step}`);
    if (!item) continue;
    item.classList.add("noted");
    item.querySelector(".glyph").textContent = ` ${notes.map((note) => note.glyph ?? "✎").join(" ")}`;
  }
}

function showNotes(notes) {
  if (!notes.length) {
    fill(ui.notes, h("p", { class: "muted" }, "No notes on this step."));
    return;
  }
  fill(
    ui.notes,
    h(
      "ul",
      { class: "notes" },
      notes.map((note) =>
        h(
          "li",
          { class: "note", "data-note": note.id },
          note.glyph ? h("span", { class: "note-glyph", "aria-label": `mark ${note.glyph}` }, note.glyph) : null,
          h("span", { class: "note-text" }, note.text),
          h("span", { class: "note-meta" }, ` — ${note.author.name}${note.author.role === "guest" ? " (guest)" : ""}, for ${visibilityText(note)}`),
        ),
      ),
    ),
  );
}

function visibilityText(note) {
  if (note.visibility === "seat") return `${state.summary.seats[note.seat]} only`;
  return Object.fromEntries(VISIBILITIES)[note.visibility] ?? note.visibility;
}

function noteForm() {
  ui.noteText = h("textarea", { id: "note-text", rows: 3, maxlength: 4000, required: true });
  ui.glyph = h("select", { id: "note-glyph" }, GLYPHS.map(([glyph, name]) => h("option", { value: glyph }, name)));
  ui.visibility = h(
    "select",
    { id: "note-visibility", onchange: () => updateNoteForm() },
    VISIBILITIES.map(([value, name]) => h("option", { value }, name)),
  );
  ui.noteSeat = h("select", { id: "note-seat" });
  ui.author = h("input", { id: "note-author", maxlength: 40, autocomplete: "nickname", value: window.localStorage.getItem("bohnanza.guest") ?? "" });
  ui.noteMessage = h("div", { "aria-live": "polite" });
  ui.authorRow = h("p", { class: "field-row" }, h("label", { for: "note-author" }, "Your name (as a guest)"), ui.author);
  ui.seatRow = h("p", { class: "field-row" }, h("label", { for: "note-seat" }, "Seat"), ui.noteSeat);
  return h(
    "form",
    { class: "note-form", onsubmit: addNote },
    h("p", { class: "field-row" }, h("label", { for: "note-text" }, "Add a note"), ui.noteText),
    h(
      "div",
      { class: "row" },
      h("p", { class: "field-row" }, h("label", { for: "note-glyph" }, "Mark"), ui.glyph),
      h("p", { class: "field-row" }, h("label", { for: "note-visibility" }, "Visible to"), ui.visibility),
      ui.seatRow,
    ),
    ui.authorRow,
    h("button", { type: "submit", id: "add-note" }, "Add note"),
    ui.noteMessage,
  );
}

function updateNoteForm() {
  const guest = !tokenOf(state.perspective);
  ui.authorRow.hidden = !guest;
  ui.author.required = guest;
  for (const option of ui.visibility.options) option.disabled = guest && option.value !== "public";
  if (guest) ui.visibility.value = "public";
  fill(ui.noteSeat, state.summary.seats.map((name, seat) => h("option", { value: seat }, name)));
  ui.seatRow.hidden = ui.visibility.value !== "seat";
}

async function addNote(event) {
  event.preventDefault();
  const token = tokenOf(state.perspective);
  const body = { step: state.position, text: ui.noteText.value, visibility: ui.visibility.value };
  if (ui.glyph.value) body.glyph = ui.glyph.value;
  if (body.visibility === "seat") body.seat = Number(ui.noteSeat.value);
  if (!token) {
    body.author = ui.author.value.trim();
    window.localStorage.setItem("bohnanza.guest", body.author);
  }
  try {
    await api(`${base}/annotations`, { method: "POST", token, body });
  } catch (error) {
    fill(ui.noteMessage, errorView(error));
    return;
  }
  ui.noteText.value = "";
  say(ui.noteMessage, "Note added.", "ok");
  state.cache.delete(`${state.perspective}|${state.position}`);
  await loadNoteIndex();
  show();
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

async function start() {
  await loadBeans();
  try {
    [state.summary, { steps: state.steps, turns: state.turns, over: state.over, open_to_all: state.openToAll }] = await Promise.all([
      api(base),
      api(`${base}/steps`),
    ]);
  } catch (error) {
    document.getElementById("subtitle").textContent = "";
    fill(app, errorView(error));
    return;
  }
  const summary = state.summary;
  document.getElementById("title").textContent = `Replay: ${summary.seats.join(", ")}`;
  document.title = `Replay: ${summary.seats.join(", ")} · Bohnanza records`;
  const status =
    summary.status === "ended"
      ? `ended after ${plural(state.turns.at(-1) ?? 0, "turn")}, won by ${summary.result.winners.map((seat) => summary.seats[seat]).join(" and ")}`
      : `in progress, turn ${summary.turn}`;
  document.getElementById("subtitle").textContent = `${summary.ruleset} · ${summary.players} players · ${summary.mode} · ${status}`;

  const params = new URLSearchParams(window.location.search);
  state.position = Math.min(Math.max(1, Number(params.get("step")) || 1), state.steps.length);
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
  build();
  updateNoteForm();
  if (notice) fill(ui.message, notice);
  document.addEventListener("keydown", onKey);
  showPosition(false);
  if (perspective === "public") {
    await Promise.all([loadTimeline(), loadNoteIndex()]);
    await show();
  } else {
    await choosePerspective(perspective);
  }
  main.dataset.ready = "true";
}

start().catch((error) => {
  fill(app, errorView(error instanceof ApiError ? error : new Error(String(error))));
});
