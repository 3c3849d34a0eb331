// Building DOM nodes without innerHTML: every text goes in as text, never as markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

function assign(node, attributes) {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      node.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (name === "value" || name === "checked" || name === "selected") {
      node[name] = value;
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
}

/** An HTML element: h("button", {class: "x", onclick: f}, "text", child, [more]). */
export function h(tag, attributes, ...children) {
  const node = document.createElement(tag);
  assign(node, attributes);
  append(node, children);
  return node;
}

/** An SVG element, like h(). */
export function s(tag, attributes, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  assign(node, attributes);
  append(node, children);
  return node;
}

/** Replace everything inside `parent` with `children`. */
export function fill(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
  return parent;
}

/** "1 card", "3 cards". */
export function plural(count, word, many = `${word}s`) {
  return `${count} ${count === 1 ? word : many}`;
}

/** True while the keyboard is busy in a text box, a list box or a slider. */
export function typing(event) {
  const target = event.target;
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  return !["button", "checkbox", "radio", "submit", "reset"].includes(target.type);
}

/** Announce a short text to screen readers and show it in `node`. */
export function say(node, text, kind = "info") {
  fill(node, text ? h("p", { class: ["message", kind] }, text) : null);
}

/** `action`, run once within `ms` of the first of a burst of calls (a game moving on step by step
 *  asks a panel to load again once, not once a step). */
export function coalesced(action, ms = 1000) {
  let timer = null;
  return () => {
    timer ??= setTimeout(() => {
      timer = null;
      action();
    }, ms);
  };
}
