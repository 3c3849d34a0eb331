// Notes on a replay's steps: the notes on the step shown, a form to add one, and, on the notes
// the viewer wrote (a seat's or the host's, with its token here), Edit and Delete. A guest's
// note stays as it is: nothing proves who a guest is (the API says so too).

import { api, errorView } from "./api.js";
import { confirmAction } from "./confirm.js";
import { fill, h, say } from "./dom.js";

export const GLYPHS = [
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

function glyphSelect(id, value = "") {
  return h("select", { id }, GLYPHS.map(([glyph, name]) => h("option", { value: glyph, selected: glyph === (value ?? "") }, name)));
}

export class NotesPanel {
  /** `base`: the game's API path; `names`: its seats; `tokenOf(perspective)`, `perspective()`
   * and `position()` tell who reads and where, `over()` whether the game has ended; `changed()`
   * runs after a note is added, edited or deleted. */
  constructor({ base, names, tokenOf, perspective, position, over, changed }) {
    Object.assign(this, { base, names, tokenOf, perspective, position, over, changed });
    this.list = h("div", { id: "notes" });
    this.form = this._form();
    this.element = [this.list, this.form];
  }

  _visibility(note) {
    if (note.visibility === "seat") return `${this.names[note.seat]} only`;
    return Object.fromEntries(VISIBILITIES)[note.visibility] ?? note.visibility;
  }

  /** Whether the reader wrote this note (and so may change it). */
  _mine(note) {
    const key = this.perspective();
    if (!this.tokenOf(key)) return false;
    if (note.author.role === "seat") return key === `seat-${note.author.seat}`;
    return note.author.role === "host" && key === "host";
  }

  /** Show the notes on the step shown. */
  show(notes) {
    if (!notes.length) {
      fill(this.list, h("p", { class: "muted" }, "No notes on this step."));
      return;
    }
    fill(this.list, h("ul", { class: "notes" }, notes.map((note) => this._note(note))));
  }

  _note(note) {
    const item = h(
      "li",
      { class: "note", "data-note": note.id },
      note.glyph ? h("span", { class: "note-glyph" }, h("span", { class: "visually-hidden" }, "mark "), note.glyph) : null,
      h("span", { class: "note-text" }, note.text),
      h("span", { class: "note-meta" }, ` — ${note.author.name}${note.author.role === "guest" ? " (guest)" : ""}, for ${this._visibility(note)}`),
    );
    if (this._mine(note)) {
      item.append(
        h(
          "span",
          { class: "note-actions" },
          h("button", { type: "button", class: "edit-note", onclick: () => this._edit(item, note) }, "Edit"),
          h("button", { type: "button", class: "delete-note", onclick: () => this._delete(note) }, "Delete"),
        ),
      );
    }
    return item;
  }

  _edit(item, note) {
    const text = h("textarea", { id: `edit-text-${note.id}`, rows: 3, maxlength: 4000, required: true }, note.text);
    const glyph = glyphSelect(`edit-glyph-${note.id}`, note.glyph);
    const message = h("div", { "aria-live": "polite" });
    const form = h(
      "form",
      { class: "note-edit" },
      h("p", { class: "field-row" }, h("label", { for: text.id }, "Note"), text),
      h("p", { class: "field-row" }, h("label", { for: glyph.id }, "Mark"), glyph),
      h("p", { class: "buttons" }, h("button", { type: "submit", class: "primary save-note" }, "Save"), h("button", { type: "button", onclick: () => item.replaceWith(this._note(note)) }, "Cancel")),
      message,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api(`${this.base}/annotations/${note.id}`, { method: "PATCH", token: this.tokenOf(this.perspective()), body: { text: text.value, glyph: glyph.value || null } });
      } catch (error) {
        fill(message, errorView(error));
        return;
      }
      await this.changed();
      say(this.message, "Note saved.", "ok");
    });
    fill(item, form);
    text.focus();
  }

  async _delete(note) {
    const sure = await confirmAction({ question: "Delete this note?", detail: `“${note.text.slice(0, 120)}”`, yes: "Delete the note", no: "Keep it" });
    if (!sure) return;
    try {
      await api(`${this.base}/annotations/${note.id}`, { method: "DELETE", token: this.tokenOf(this.perspective()) });
    } catch (error) {
      fill(this.message, errorView(error));
      return;
    }
    await this.changed();
    say(this.message, "Note deleted.", "ok");
  }

  _form() {
    this.text = h("textarea", { id: "note-text", rows: 3, maxlength: 4000, required: true });
    this.glyph = glyphSelect("note-glyph");
    this.visibility = h("select", { id: "note-visibility", onchange: () => this.update() }, VISIBILITIES.map(([value, name]) => h("option", { value }, name)));
    this.seat = h("select", { id: "note-seat" });
    this.author = h("input", { id: "note-author", maxlength: 40, autocomplete: "nickname", value: window.localStorage.getItem("bohnanza.guest") ?? "" });
    this.message = h("div", { id: "note-message", "aria-live": "polite" });
    this.authorRow = h("p", { class: "field-row" }, h("label", { for: "note-author" }, "Your name (as a guest)"), this.author);
    this.seatRow = h("p", { class: "field-row" }, h("label", { for: "note-seat" }, "Seat"), this.seat);
    this.guestsLater = h("p", { class: "muted", id: "guests-later" }, "Guests may add notes once the game is over; a seat's or the host's token may add them now.");
    this.submit = h("button", { type: "submit", id: "add-note" }, "Add note");
    const form = h(
      "form",
      { class: "note-form" },
      h("p", { class: "field-row" }, h("label", { for: "note-text" }, "Add a note"), this.text),
      h(
        "div",
        { class: "row" },
        h("p", { class: "field-row" }, h("label", { for: "note-glyph" }, "Mark"), this.glyph),
        h("p", { class: "field-row" }, h("label", { for: "note-visibility" }, "Visible to"), this.visibility),
        this.seatRow,
      ),
      this.authorRow,
      this.guestsLater,
      this.submit,
      this.message,
    );
    form.addEventListener("submit", (event) => this._add(event));
    return form;
  }

  /** The form for the reader: a guest names itself and writes public notes only, once the game
   * is over. */
  update() {
    const guest = !this.tokenOf(this.perspective());
    const waits = guest && !this.over();
    this.guestsLater.hidden = !waits;
    this.submit.disabled = waits;
    this.authorRow.hidden = !guest;
    this.author.required = guest;
    for (const option of this.visibility.options) option.disabled = guest && option.value !== "public";
    if (guest) this.visibility.value = "public";
    fill(this.seat, this.names.map((name, seat) => h("option", { value: seat }, name)));
    this.seatRow.hidden = this.visibility.value !== "seat";
  }

  async _add(event) {
    event.preventDefault();
    const token = this.tokenOf(this.perspective());
    const body = { step: this.position(), text: this.text.value, visibility: this.visibility.value };
    if (this.glyph.value) body.glyph = this.glyph.value;
    if (body.visibility === "seat") body.seat = Number(this.seat.value);
    if (!token) {
      body.author = this.author.value.trim();
      window.localStorage.setItem("bohnanza.guest", body.author);
    }
    try {
      await api(`${this.base}/annotations`, { method: "POST", token, body });
    } catch (error) {
      fill(this.message, errorView(error));
      return;
    }
    this.text.value = "";
    await this.changed();
    say(this.message, "Note added.", "ok");
  }
}
