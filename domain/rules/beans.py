"""The eleven bean types, their card counts and beanometers (RULES §1)."""

from __future__ import annotations

from dataclasses import dataclass

Meter = tuple[int | None, int | None, int | None, int | None]


@dataclass(frozen=True, slots=True)
class Bean:
    """One bean type as printed on its cards."""

    id: str
    label: str
    german: str
    count: int
    meter: Meter
    """Fewest cards in a harvested field that earn 1, 2, 3 and 4 coins; None: no such level."""


BEANS: dict[str, Bean] = {
    bean.id: bean
    for bean in (
        Bean("coffee", "Coffee", "Kaffeebohne", 24, (4, 7, 10, 12)),
        Bean("wax", "Wax", "Wachsbohne", 22, (4, 7, 9, 11)),
        Bean("blue", "Blue", "Blaue Bohne", 20, (4, 6, 8, 10)),
        Bean("chili", "Chili", "Feuerbohne", 18, (3, 6, 8, 9)),
        Bean("stink", "Stink", "Saubohne", 16, (3, 5, 7, 8)),
        Bean("green", "Green", "Brechbohne", 14, (3, 5, 6, 7)),
        Bean("soy", "Soy", "Sojabohne", 12, (2, 4, 6, 7)),
        Bean("black-eyed", "Black-eyed", "Augenbohne", 10, (2, 4, 5, 6)),
        Bean("red", "Red", "Rote Bohne", 8, (2, 3, 4, 5)),
        Bean("garden", "Garden", "Gartenbohne", 6, (None, 2, 3, None)),
        Bean("cocoa", "Cocoa", "Kakaobohne", 4, (None, 2, 3, 4)),
    )
}
"""All bean types in the order of the RULES §1.1 table (most common first)."""

BASE_BEANS = ("blue", "chili", "stink", "green", "soy", "black-eyed", "red", "garden")
"""The 104-card AMIGO base deck: rows 3–10 of the table (RULES §1.1)."""


def coins_for(meter: Meter, cards: int) -> int:
    """Coins a harvest of `cards` beans earns under `meter` (RULES §1.2); never more than 4."""
    earned = 0
    for coins, needed in enumerate(meter, start=1):
        if needed is not None and needed <= cards:
            earned = coins
    return earned


def label(bean: str) -> str:
    """The English name used in messages ("Black-eyed"), or the id itself if unknown."""
    known = BEANS.get(bean)
    return known.label if known else bean


def beans_text(beans: list[str] | tuple[str, ...]) -> str:
    """Human text for a group of cards: "2 Blue, 1 Chili" in first-seen order; "no cards"."""
    if not beans:
        return "no cards"
    counts: dict[str, int] = {}
    for bean in beans:
        counts[bean] = counts.get(bean, 0) + 1
    return ", ".join(f"{n} {label(bean)}" for bean, n in counts.items())


def coins_text(count: int) -> str:
    """`1 coin`, `3 coins`."""
    return f"{count} coin{'' if count == 1 else 's'}"
