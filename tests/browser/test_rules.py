"""The rules reference at /rules, and the refusals on the pages that link their section to it."""

from __future__ import annotations

import pytest

from tests.citations import code_citations

from .conftest import DESKTOP, PHONE, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_refusal_links_the_section_it_cites_to_that_section_of_the_rules_page(
    pages: Pages, site: Site
) -> None:
    game = site.new_game()
    page = pages.open("/")

    # A real refusal from the API, shown by the pages' own refusal view (api.js errorView, which
    # every page uses), so the test does not hang on any one page's controls.
    page.evaluate(
        """async ({ game, token }) => {
          const { api, errorView } = await import("/assets/js/api.js");
          try {
            await api(`/api/games/${game}/commands`, {
              token, method: "POST", body: { type: "harvest", field: 0 },
            });
          } catch (error) {
            document.querySelector("main").append(errorView(error));
          }
        }""",
        {"game": game.id, "token": game.seat_tokens[0]},
    )
    link = page.wait_for_selector(".refusal a.rule")

    assert link.inner_text() == "RULES §8.2"
    assert link.get_attribute("href") == "/rules#s8.2"
    assert "Ana cannot harvest field 1: it is empty" in page.inner_text(".refusal")
    with page.context.expect_page() as opened:
        link.click()
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url == f"{site.base}/rules#s8.2"
    assert rules.evaluate("document.querySelector(':target')?.id") == "s8.2"
    assert "whole field" in rules.inner_text("#s8\\.2")


def test_the_pages_link_every_section_the_code_cites_to_an_anchor_of_the_rules_page(
    pages: Pages,
) -> None:
    page = pages.open("/rules")
    sections = sorted(code_citations())

    missing = page.evaluate(
        """async (sections) => {
          const { rulesHref } = await import("/assets/js/rules.js");
          return sections.filter((section) => {
            const href = rulesHref(`RULES §${section}`);
            return !href.startsWith("/rules#") || !document.getElementById(href.slice(7));
          });
        }""",
        sections,
    )

    assert sections
    assert missing == []


def test_a_list_of_citations_in_a_text_becomes_a_link_each(pages: Pages) -> None:
    page = pages.open("/rules")

    links = page.evaluate(
        """async () => {
          const { withRuleLinks } = await import("/assets/js/rules.js");
          const parts = withRuleLinks("Refused (RULES §2, §15): see RULES §14 E6 and RULES §6.2–6.4.");
          return parts.map((part) => typeof part === "string" ? part : [part.textContent, part.getAttribute("href")]);
        }"""
    )

    assert links == [
        "Refused (",
        ["RULES §2", "/rules#s2"],
        ", ",
        ["§15", "/rules#s15"],
        "): see ",
        ["RULES §14 E6", "/rules#s14-E6"],
        " and ",
        ["RULES §6.2–6.4", "/rules#s6.2"],
        ".",
    ]


def test_the_rules_page_reads_on_a_phone_and_lists_its_chapters(pages: Pages) -> None:
    page = pages.open("/rules#s14-E6", viewport=PHONE)

    assert page.locator(".rules-contents li").count() == 18
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "rules-390x844", full_page=False)
    page.set_viewport_size(DESKTOP)
    screenshot(page, "rules-1366x850", full_page=False)
