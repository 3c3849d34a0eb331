// Citations of the rules reference ("RULES §8.3", "RULES §14 E6") as links to the app's own
// rendering of it: the section's anchor is "s" and the citation with its spaces as hyphens
// (/rules#s8.3, /rules#s14-E6), as api/rulebook.py gives them.

import { h } from "./dom.js";

const ONE = String.raw`§\d+(?:\.\d+)*(?:–\d+(?:\.\d+)*)?(?: (?:[EHC]\d+|step \d+))?`;
const CITATION = new RegExp(String.raw`§(\d+(?:\.\d+)*)(?:–\d+(?:\.\d+)*)?((?: (?:[EHC]\d+|step \d+))?)`, "g");
const CITED = new RegExp(`RULES ${ONE}(?:(?:, | and )${ONE})*`, "g");

/** The /rules address of a cited section: "RULES §8.3" (or "8.3", "§14 E6") → "/rules#s8.3". */
export function rulesHref(citation) {
  const match = new RegExp(CITATION.source).exec(`§${String(citation).replace(/^(RULES )?§/, "")}`);
  return match ? `/rules#s${match[1]}${match[2].replace(/ /g, "-")}` : "/rules";
}

/** A link to the cited section, opened beside the page (a half-entered move is not lost). */
export function ruleLink(citation, text = citation, attributes = {}) {
  return h("a", { href: rulesHref(citation), target: "_blank", rel: "noopener", ...attributes }, text);
}

/** `text` with every "RULES §…" in it (and each "§…" of a list of them) as links: for h(). */
export function withRuleLinks(text) {
  const source = String(text);
  const parts = [];
  let position = 0;
  for (const cited of source.matchAll(CITED)) {
    for (const section of cited[0].matchAll(CITATION)) {
      // The first section's link takes in "RULES " too: "RULES §2, §15" → [RULES §2], [§15].
      const start = cited.index + (section.index === "RULES ".length ? 0 : section.index);
      const end = cited.index + section.index + section[0].length;
      parts.push(source.slice(position, start), ruleLink(section[0], source.slice(start, end)));
      position = end;
    }
  }
  parts.push(source.slice(position));
  return parts.filter((part) => part !== "");
}
