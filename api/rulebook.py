"""The rules reference, docs/rules.md, as the /rules page shows it: HTML with an anchor per section.

Every refusal cites a section ("RULES §8.3", "RULES §14 E6"); on the page that section's anchor is
`s` and the citation with its spaces as hyphens (`/rules#s8.3`, `/rules#s14-E6`), the scheme the
pages' script (static/js/rules.js) uses to link a refusal to it. The Markdown stays plain for
people reading it anywhere: a heading that starts with a number ("### 8.3 Bean protection"), or a
paragraph or list item that starts with a bold label ("**5.1.2** …", "**E6** …", "**Step 2** …"),
is a section; a label that is not a number belongs to the numbered heading above it
("**E6**" under "## 14." is §14 E6). A "§8.3" in the text becomes a link to that section.

A checkout reads docs/rules.md itself; an installed copy of the app reads the copy the wheel
carries as api/reference/rules.md (pyproject.toml maps docs/ to that package directory).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

PACKAGED = Path(__file__).with_name("reference") / "rules.md"
CHECKOUT = Path(__file__).resolve().parents[1] / "docs" / "rules.md"

NUMBER = r"\d+(?:\.\d+)*"
PART = r"[EHC]\d+|step \d+"
CITATION = re.compile(rf"§({NUMBER})(?:–({NUMBER}))?(?: ({PART}))?")
"""A citation in text: "§8.3", "§14 E6", "§11.2 step 2", or a range "§6.2–6.4" / "§10.6–7"."""
_ONE = rf"§{NUMBER}(?:–{NUMBER})?(?: (?:{PART}))?"
CITATIONS = re.compile(rf"RULES {_ONE}(?:(?:, | and ){_ONE})*")
"""What the code cites: "RULES §8.3", or a list of them ("RULES §2, §15")."""

_HEADING = re.compile(rf"^(?:({NUMBER})\.?|([EHC]\d+)|Step (\d+))(?:\s|$)")
"""A heading that opens a section: "8.3 Bean protection", "14. Edge cases", "E6 …", "Step 2 …"."""
_LABEL = re.compile(rf"^(?:({NUMBER})|([EHC]\d+)|Step (\d+))$")
"""A paragraph's bold label: "5.1.2", "E6", "Step 2"."""


def anchor(section: str) -> str:
    """The page anchor of a section as cited: "8.3" → "s8.3", "14 E6" → "s14-E6"."""
    return "s" + section.strip().replace(" ", "-")


def cited_sections(text: str) -> list[str]:
    """Every section a text cites as "RULES §…", ranges as their two ends ("RULES §6.2–6.4" is
    6.2 and 6.4; "§10.6–7" is 10.6 and 10.7), in order."""
    sections: list[str] = []
    for cited in CITATIONS.finditer(text):
        for match in CITATION.finditer(cited.group(0)):
            sections += _ends(match)
    return sections


def _ends(match: re.Match[str]) -> list[str]:
    first, last, part = match.groups()
    if part:
        return [f"{first} {part}"]
    if last is None:
        return [first]
    head = first.split(".")
    tail = last.split(".")
    return [first, ".".join(head[: len(head) - len(tail)] + tail)]


@dataclass(frozen=True, slots=True)
class RulesPage:
    """The reference rendered: its HTML, its chapters (anchor, title) and every section anchor."""

    html: str
    contents: tuple[tuple[str, str], ...]
    anchors: frozenset[str]


def rules_source() -> Path:
    """The Markdown file of the rules reference: the installed copy, else the checkout's."""
    return PACKAGED if PACKAGED.exists() else CHECKOUT


@cache
def rules_page() -> RulesPage:
    """The rules reference as served at /rules (rendered once per process)."""
    return render(rules_source().read_text(encoding="utf-8"))


def render(markdown: str) -> RulesPage:
    """HTML for the reference: no raw HTML passes through, every section gets its anchor, and
    every "§x" in the text that names one links to it."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(markdown)
    anchors, contents = _mark_sections(tokens)
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _linked(token.children, anchors)
    html = parser.renderer.render(tokens, parser.options, {})
    # Code blocks and tables scroll sideways on a phone: focusable, so a keyboard can scroll
    # them too. (No raw HTML passes through: every tag in the output is the renderer's.)
    html = html.replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')
    return RulesPage(html, tuple(contents), frozenset(anchors))


def _mark_sections(tokens: list[Token]) -> tuple[set[str], list[tuple[str, str]]]:
    """Give each section's heading or paragraph its id; the ids and the chapters (h2)."""
    anchors: set[str] = set()
    contents: list[tuple[str, str]] = []
    numbered: dict[int, str] = {}
    """The number of the latest numbered heading at each level, for the labels below it."""
    for index, token in enumerate(tokens[:-1]):
        inline = tokens[index + 1]
        if token.type == "heading_open":
            level = int(token.tag[1])
            match = _HEADING.match(inline.content)
            if match is None:
                continue
            section = _section(match, [n for lvl, n in sorted(numbered.items()) if lvl < level])
            if section is None:
                continue
            if match.group(1):
                numbered = {lvl: n for lvl, n in numbered.items() if lvl < level}
                numbered[level] = section
            _claim(token, anchor(section), anchors)
            if level == 2:
                contents.append((anchor(section), inline.content))
        elif token.type == "paragraph_open" and inline.children:
            label = _paragraph_label(inline.children)
            section = label and _section(label, [n for _, n in sorted(numbered.items())])
            if section:
                # A tight list item's paragraph is not rendered as a tag: the item takes the id.
                owner = tokens[index - 1] if token.hidden else token
                _claim(owner, anchor(section), anchors)
                _link_label(inline.children, anchor(section))
    return anchors, contents


def _section(label: re.Match[str], above: list[str]) -> str | None:
    """The section a label names: its number, or a code or step under the heading numbered
    just above it ("E6" under "14." is "14 E6"); None for a code with no numbered heading above."""
    number, code, step = label.groups()
    if number:
        return number
    if not above:
        return None
    return f"{above[-1]} {code}" if code else f"{above[-1]} step {step}"


def _paragraph_label(children: list[Token]) -> re.Match[str] | None:
    """The bold label a paragraph opens with ("**5.1.2** …", "**E6** …"), if any."""
    kinds = [child for child in children if not (child.type == "text" and not child.content)]
    if len(kinds) < 3 or kinds[0].type != "strong_open" or kinds[2].type != "strong_close":
        return None
    return _LABEL.match(kinds[1].content) if kinds[1].type == "text" else None


def _claim(token: Token, name: str, anchors: set[str]) -> None:
    if name in anchors:
        raise ValueError(f"the rules reference has section {name!r} twice")
    anchors.add(name)
    token.attrSet("id", name)


def _link_label(children: list[Token], name: str) -> None:
    """Make a paragraph's bold label a link to its own section (to copy or share)."""
    start = next(i for i, child in enumerate(children) if child.type == "strong_open")
    opening = Token("link_open", "a", 1, attrs={"href": f"#{name}", "class": "section-link"})
    children.insert(start + 3, Token("link_close", "a", -1))
    children.insert(start, opening)


def _linked(children: list[Token], anchors: set[str]) -> list[Token]:
    """The inline tokens with every "§x" naming a section of the page turned into a link."""
    result: list[Token] = []
    in_link = 0
    for child in children:
        in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        if child.type != "text" or in_link or "§" not in child.content:
            result.append(child)
            continue
        text = child.content
        position = 0
        for match in CITATION.finditer(text):
            name = anchor(_ends(match)[0])
            if name not in anchors:
                continue
            result.append(_text(text[position : match.start()]))
            result.append(Token("link_open", "a", 1, attrs={"href": f"#{name}"}))
            result.append(_text(match.group(0)))
            result.append(Token("link_close", "a", -1))
            position = match.end()
        result.append(_text(text[position:]))
    return result


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)
