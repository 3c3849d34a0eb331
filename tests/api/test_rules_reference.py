"""The rules reference, docs/rules.md: every section the code can cite is one of its sections, it
names every preset and option as the code has them, it points nowhere outside the repository, and
the app serves it at /rules with an anchor per section and the pages' headers."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from markdown_it import MarkdownIt

from api import rulebook
from api.rulebook import CITATION, anchor, cited_sections, render, rules_page
from api.web import CONTENT_SECURITY_POLICY
from domain.rules.rulesets import OPTIONS, PRESETS
from tests.citations import ROOT, code_citations

REFERENCE = ROOT / "docs" / "rules.md"
CITED = code_citations()


def reference_text() -> str:
    return REFERENCE.read_text(encoding="utf-8")


@pytest.mark.parametrize("section", sorted(CITED), ids=str)
def test_every_section_the_code_can_cite_is_a_section_of_the_reference(section: str) -> None:
    assert anchor(section) in rules_page().anchors, (
        f"RULES §{section} is cited at {', '.join(CITED[section])} but docs/rules.md has no such "
        "section"
    )


def test_the_collected_citations_include_refusals_docstrings_scripts_and_options() -> None:
    assert {"8.3", "14 E6", "12.1 H3", "11.2 step 2", "4.5", "2.1"} <= set(CITED)
    assert any(place.startswith("api/static/js/") for place in CITED["4.5"])


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        ("RULES §8.3 (bean protection): Ana cannot harvest", ["8.3"]),
        ("an upcaster (RULES §2, §15)", ["2", "15"]),
        ("(RULES §5.1.3, §5.2)", ["5.1.3", "5.2"]),
        ("cards to trade (RULES §6.2–6.4)", ["6.2", "6.4"]),
        ("then the standing (RULES §10.6–7)", ["10.6", "10.7"]),
        ("counts again (RULES §14 E6)", ["14 E6"]),
        ("(RULES §11.2 step 3)", ["11.2 step 3"]),
        ("in RULES §1.1 table order", ["1.1"]),
        ("see ARCHITECTURE §10 and §8.3 alone", []),
    ],
)
def test_a_citation_is_read_as_its_sections(text: str, sections: list[str]) -> None:
    assert cited_sections(text) == sections


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ("8.3", "s8.3"),
        ("14 E6", "s14-E6"),
        ("12.1 H1", "s12.1-H1"),
        ("11.2 step 2", "s11.2-step-2"),
    ],
)
def test_a_section_has_one_anchor_scheme(section: str, expected: str) -> None:
    assert anchor(section) == expected


def test_every_cross_reference_inside_the_reference_names_one_of_its_sections() -> None:
    anchors = rules_page().anchors
    referenced = {match.group(0) for match in CITATION.finditer(reference_text())}

    missing = sorted(ref for ref in referenced if anchor(ref[1:].split("–")[0]) not in anchors)
    assert referenced
    assert missing == []


def test_the_reference_follows_the_specifications_numbering() -> None:
    anchors = rules_page().anchors
    chapters = [f"s{number}" for number in range(18)]
    edge_cases = [f"s14-E{number}" for number in range(1, 21)]
    house_rules = [f"s12.1-H{number}" for number in range(1, 7)]
    duel_steps = [f"s11.2-step-{number}" for number in range(1, 5)]

    assert set(chapters + edge_cases + house_rules + duel_steps) <= anchors


def test_a_section_given_twice_is_refused_when_rendering() -> None:
    with pytest.raises(ValueError, match=r"s3\.1"):
        render("## 3. Setup\n\n**3.1** Seats.\n\n**3.1** Again.\n")


def test_every_preset_is_described_in_the_reference() -> None:
    text = reference_text()
    for preset in PRESETS:
        assert re.search(rf"^### 2\.\d `{preset}`", text, re.M), preset


@pytest.mark.parametrize("name", list(OPTIONS))
def test_every_option_is_in_the_reference_table_with_its_values_and_section(name: str) -> None:
    option = OPTIONS[name]
    row = re.search(rf"^\| `{name}` \|(.*)$", reference_text(), re.M)

    assert row, f"option {name} has no row in the reference's §15 table"
    cells = [cell.strip() for cell in row.group(1).split("|")]
    for choice in option.choices:
        shown = str(choice).lower() if isinstance(choice, bool) else str(choice)
        assert f"`{shown}`" in cells[0], (name, shown)
    assert cells[-2] == f"§{option.section}"


def _links(text: str) -> list[str]:
    """Every address the Markdown links to or shows an image from."""
    addresses = []
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        for child in token.children or []:
            if child.type == "link_open":
                addresses.append(str(child.attrGet("href")))
            elif child.type == "image":
                addresses.append(str(child.attrGet("src")))
    return addresses


def test_the_reference_links_to_nothing_outside_the_repository() -> None:
    text = reference_text()

    for address in _links(text):
        target = (REFERENCE.parent / address.split("#")[0]).resolve()
        assert address.startswith("#") or (
            "://" not in address and target.is_relative_to(ROOT) and target.exists()
        ), address
    assert "://" not in text
    assert "www." not in text
    for outside in ("../", "/work/", "shared/", "seeds/"):
        assert outside not in text, outside


def test_the_readme_points_to_the_reference_in_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    assert "](docs/rules.md)" in readme
    assert "/rules" in readme


def test_the_rules_page_has_an_anchor_per_section_and_the_pages_headers(
    client: FlaskClient,
) -> None:
    response = client.get("/rules")

    assert response.status_code == 200
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    html = response.get_data(as_text=True)
    ids = set(re.findall(r' id="([^"]+)"', html))
    assert rules_page().anchors <= ids
    assert {"s8.3", "s14-E6", "s12.1-H1", "s11.2-step-2"} <= ids
    assert '<a href="#s8.3">§8.3</a>' in html


def test_the_rules_page_runs_no_script_and_loads_only_from_the_app(client: FlaskClient) -> None:
    html = client.get("/rules").get_data(as_text=True)

    assert "<script" not in html
    links = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert links
    assert all(re.match(r"(/(?!/)|#)", link) for link in links), links


def test_the_rules_page_passes_no_markup_from_the_source() -> None:
    page = render("## 1. Cards\n\n**1.1** <script>alert(1)</script> and <b>bold</b>\n")

    assert "<script" not in page.html
    assert "&lt;script&gt;" in page.html


def test_every_page_links_to_the_rules_page(client: FlaskClient) -> None:
    assert 'href="/rules"' in client.get("/").get_data(as_text=True)


def test_an_installed_app_reads_the_copy_its_wheel_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = tmp_path / "reference" / "rules.md"
    assert rulebook.rules_source() == rulebook.CHECKOUT

    packaged.parent.mkdir()
    packaged.write_text("# Rules\n")
    monkeypatch.setattr(rulebook, "PACKAGED", packaged)

    assert rulebook.rules_source() == packaged


def test_the_wheel_carries_docs_rules_md_as_the_apps_reference() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]

    assert "api.reference" in setuptools["packages"]
    assert setuptools["package-dir"]["api.reference"] == "docs"
    assert setuptools["package-data"]["api.reference"] == ["rules.md"]
    assert rulebook.PACKAGED == ROOT / "api" / "reference" / "rules.md"


def test_the_image_copies_the_reference_it_installs() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()

    assert re.search(r"^COPY docs/rules\.md \./docs/rules\.md$", dockerfile, re.M)
