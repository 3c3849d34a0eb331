"""The docs' links lead somewhere: every relative link of the README, CONTRIBUTING and docs/
names a file of the repository, and its anchor a heading of that file (a section of the rules
reference by its page anchor, `#s8.3`, as the app's /rules page and the refusals name them);
nothing links outside the repository but the few addresses allowed, and the README stays a
front door."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api.rulebook import render

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
README_LIMIT = 12 * 1024


def links(document: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", document.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """The anchor a Markdown viewer gives a heading (GitHub's rule: lower case, punctuation
    dropped, spaces as hyphens)."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(document: Path) -> set[str]:
    text = document.read_text(encoding="utf-8")
    if document.name == "rules.md":
        return set(render(text).anchors)
    headings = re.findall(r"^#{1,6} (.+)$", FENCE.sub("", text), re.M)
    return {slug(heading) for heading in headings}


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(d.relative_to(ROOT)) for d in DOCUMENTS])
def test_every_relative_link_names_a_file_and_a_heading_that_exist(document: Path) -> None:
    for link in links(document):
        if re.match(r"^[a-z]+:", link):
            continue  # checked below
        path, _, fragment = link.partition("#")
        target = (document.parent / path).resolve() if path else document
        assert target.is_relative_to(ROOT), f"{link} leaves the repository"
        assert target.exists(), f"{document.name}: {link} names no file"
        if fragment and target.suffix == ".md":
            assert fragment in anchors(target), f"{document.name}: {link} names no heading"


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(d.relative_to(ROOT)) for d in DOCUMENTS])
def test_nothing_links_outside_the_repository(document: Path) -> None:
    assert not [link for link in links(document) if re.match(r"^[a-z]+:", link)]


def test_the_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= README_LIMIT
