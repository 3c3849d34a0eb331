// Asking before an action a slip could make: a modal dialog (the native <dialog>), its safe
// choice focused first.

import { h } from "./dom.js";

/** Ask `question` (with `detail`); true if the person chose `yes`. */
export function confirmAction({ question, detail = null, yes, no = "Cancel" }) {
  return new Promise((resolve) => {
    const title = h("h2", { id: "confirm-title" }, question);
    const keep = h("button", { type: "button", id: "confirm-no", class: "primary" }, no);
    const go = h("button", { type: "button", id: "confirm-yes" }, yes);
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": "confirm-title" },
      title,
      detail ? h("p", {}, detail) : null,
      h("p", { class: "buttons" }, keep, go),
    );
    const close = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    keep.addEventListener("click", () => close(false));
    go.addEventListener("click", () => close(true));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    keep.focus();
  });
}
