"""Test support: every section of the rules reference (docs/rules.md) the code can cite.

Collected from the code itself, so a new citation is checked the day it is written:
- "RULES §…" in the source, documentation strings, templates and scripts of domain/, replays/,
  api/ and projections/ (a list such as "RULES §2, §15" is each of its sections; a range such as
  "RULES §6.2–6.4" its two ends);
- every section a RuleViolation may name (`SECTIONS`: a section missing there cannot be raised);
- the section given to any of the service's errors as a literal argument or `section=`;
- each option's section and each preset's source (shown by `bohnanza rulesets`, GET /api/rulesets
  and the recorder page).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from api.rulebook import cited_sections
from domain.rules import errors
from domain.rules.rulesets import OPTIONS, PRESETS

ROOT = Path(__file__).resolve().parents[1]
CODE = ("domain", "replays", "api", "projections")
SUFFIXES = (".py", ".js", ".html", ".json")
SECTION = re.compile(r"\d+(?:\.\d+)*(?: (?:[EHC]\d+|step \d+))?")
ERRORS = {
    name
    for name, value in vars(errors).items()
    if isinstance(value, type) and issubclass(value, errors.BohnanzaError)
}


def code_citations() -> dict[str, list[str]]:
    """Each section the code can cite, with where it is cited ("domain/rules/decide.py:157")."""
    found: dict[str, list[str]] = defaultdict(list)
    for folder in CODE:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or "reference" in path.parts:
                continue
            where = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(), start=1):
                for section in cited_sections(line):
                    found[section].append(f"{where}:{number}")
            if path.suffix == ".py":
                for section, line in _error_arguments(text):
                    found[section].append(f"{where}:{line}")
    for section in errors.SECTIONS:
        found[section].append("domain/rules/errors.py SECTIONS")
    for option in OPTIONS.values():
        found[option.section].append(f"option {option.name}")
    for preset in PRESETS.values():
        for section in cited_sections(preset.source):
            found[section].append(f"preset {preset.id}")
    return dict(found)


def _error_arguments(source: str) -> list[tuple[str, int]]:
    """Sections passed as literals to the service's errors: `RuleViolation("8.3", …)`, or any
    call's `section="…"`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        given = [kw.value for kw in node.keywords if kw.arg == "section"]
        if name in ERRORS:
            given += node.args
        found += [
            (arg.value, node.lineno)
            for arg in given
            if isinstance(arg, ast.Constant)
            and isinstance(arg.value, str)
            and SECTION.fullmatch(arg.value)
        ]
    return found
