// Importing a record: choose (or drop) a record file, see the verdict of the rules on it (every
// command decided again), import it, and open the game it became.

import { api, errorView } from "./api.js";
import { fill, h, plural } from "./dom.js";
import { ruleLink, withRuleLinks } from "./rules.js";
import { rememberTokens } from "./tokens.js";

const app = document.getElementById("app");
const ui = {};

function outcomeText(result, names) {
  if (!result) return "the record stops before the end of the game";
  const scores = result.scores.map((score, seat) => `${names[seat]} ${score}`).join(", ");
  const winners = result.winners.map((seat) => names[seat]).join(" and ");
  return `${scores}: ${winners} ${result.winners.length === 1 ? "wins" : "share the win"}`;
}

function verdictView(record, report) {
  const names = record.header?.seats ?? [];
  const what = `${report.ruleset.preset}, ${plural(report.ruleset.players, "player")}, ${report.mode}`;
  if (report.verdict === "illegal") {
    const step = report.first_illegal_step;
    return h(
      "section",
      { class: "verdict illegal", id: "verdict", "aria-labelledby": "verdict-title" },
      h("h2", { id: "verdict-title" }, "Illegal: the rules refuse this record"),
      h("p", {}, `${what}. The first move the rules refuse is command ${step.position + 1} of ${report.commands}:`),
      h("p", { class: "refusal" }, step.rule ? h("strong", {}, ruleLink(step.rule, step.rule, { class: "rule" })) : null, " ", withRuleLinks(step.sentence ?? step.message)),
      step.table ? h("details", {}, h("summary", {}, "The table before it"), h("pre", { class: "table-text", tabindex: 0 }, step.table)) : null,
      h("p", { class: "muted" }, "Nothing was stored. A game cannot be made from a record the rules refuse."),
    );
  }
  return h(
    "section",
    { class: "verdict legal", id: "verdict", "aria-labelledby": "verdict-title" },
    h("h2", { id: "verdict-title" }, "Legal: every move follows the rules"),
    h("p", {}, `${what}; ${plural(report.commands, "command")} checked. Outcome: ${outcomeText(report.result, names)}.`),
    report.notes.length ? h("ul", {}, report.notes.map((note) => h("li", {}, withRuleLinks(note)))) : null,
    h("p", {}, h("button", { type: "button", class: "primary", id: "import", onclick: () => importRecord(record) }, "Import it as a game")),
  );
}

function imported(answer, record) {
  rememberTokens(answer.game_id, { seats: answer.seats, host: answer.host_token });
  const ended = Boolean(record.result);
  return h(
    "section",
    { class: "verdict legal", id: "imported", "aria-labelledby": "imported-title" },
    h("h2", { id: "imported-title" }, "Imported"),
    h("p", {}, `The record is now a game here${answer.notes ? `, with ${plural(answer.notes, "note")}` : ""}. Its seats' and host's tokens are kept in this browser.`),
    h(
      "p",
      { class: "actions" },
      h("a", { class: "button primary", id: "open-game", href: `/games/${answer.game_id}/replay` }, ended ? "Open the game" : "Open the game (it goes on)"),
      ended ? null : answer.seats.map((seat) => h("a", { class: "button", href: `/play/${answer.game_id}#seat=${seat.seat}` }, `Play ${seat.name}`)),
    ),
  );
}

async function importRecord(record) {
  const button = document.getElementById("import");
  button.disabled = true;
  try {
    const answer = await api("/api/records", { method: "POST", body: record });
    fill(ui.result, imported(answer, record));
  } catch (error) {
    const here = error.status === 409 && error.code === "already_imported" && error.body?.game_id;
    fill(
      ui.result,
      errorView(error),
      here ? h("p", {}, h("a", { class: "button primary", id: "open-game", href: `/games/${error.body.game_id}/replay` }, "Open the game it became")) : null,
    );
  }
  ui.result.querySelector("a, button")?.focus();
}

async function check(file) {
  fill(ui.result, h("p", { class: "muted" }, `Checking ${file.name}…`));
  let record;
  try {
    record = JSON.parse(await file.text());
  } catch {
    fill(ui.result, errorView(new Error(`${file.name} is not JSON: a record is the JSON file an export writes.`)));
    return;
  }
  try {
    const report = await api("/api/records/verification", { method: "POST", body: { record } });
    fill(ui.result, verdictView(record, report));
  } catch (error) {
    fill(ui.result, errorView(error));
  }
  ui.result.querySelector("h2, .refusal")?.setAttribute("tabindex", "-1");
  ui.result.querySelector("h2, .refusal")?.focus();
}

function start() {
  ui.file = h("input", { type: "file", id: "record-file", accept: "application/json,.json", onchange: () => ui.file.files[0] && check(ui.file.files[0]) });
  ui.result = h("div", { id: "result", "aria-live": "polite" });
  const drop = h(
    "div",
    { class: "drop-zone", id: "drop-zone" },
    h("p", { class: "field-row" }, h("label", { for: "record-file" }, "Record file (JSON)"), ui.file),
    h("p", { class: "hint" }, "or drop the file here. It is checked at once; nothing is stored until you import it."),
  );
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("dragging");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("dragging");
    const file = event.dataTransfer?.files?.[0];
    if (file) check(file);
  });
  fill(app, h("section", { class: "panel import", "aria-label": "Choose a record" }, drop), ui.result);
  document.querySelector("main").dataset.ready = "true";
}

start();
