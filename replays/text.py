"""Replays as text for people: a viewer's table, and the changes of a step.

`draw_view` draws what `projections.views.render` gives that viewer, nothing more: another
player's hand is a number of cards, a secret coin pile is "hidden", the draw pile's order is drawn
only for an auditor. (`domain.rules.notation.draw_table` draws every hand: for auditors only.)
"""

from __future__ import annotations

import json
from typing import Any

from domain.rules.beans import beans_text, label
from domain.rules.state import GameState
from projections.views import Viewer, render

from .steps import Change, Step

DRAW_PILE_SHOWN = 10
"""Cards of an audited digital draw pile drawn, from the top."""


def viewer_text(viewer: Viewer, names: tuple[str, ...] | list[str]) -> str:
    """E.g. "Ben (seat 1)", "the public", "the host", "an auditor"."""
    if viewer.seat is not None:
        return f"{names[viewer.seat]} (seat {viewer.seat})"
    return {"public": "the public", "host": "the host", "auditor": "an auditor"}[viewer.kind]


def draw_view(view: GameState, viewer: Viewer) -> str:
    """The table as `viewer` sees it in `view` (a view folded from its redacted facts)."""
    document = render(view, viewer)
    seats = document["seats"]
    names = [seat["name"] for seat in seats]
    lines = [
        f"{document['ruleset']}, {document['players']} players, {document['mode']}; "
        f"turn {document['turn']}, {names[document['active_seat']]} active, "
        f"phase {document['phase']} — seen by {viewer_text(viewer, names)}",
        _piles(document),
    ]
    if document["revealed"]:
        lines.append(f"face up: {beans_text(document['revealed'])}")
    if document["duel_offer"]:
        lines.append(f"offer: {beans_text(document['duel_offer'])}")
    for offer in document["offers"]:
        lines.append(
            f"offer #{offer['id']}: {names[offer['proposer']]} → {names[offer['to']]}: "
            f"{beans_text(offer['gives'])} for {beans_text(offer['wants'])}"
        )
    for seat in seats:
        fields = " | ".join(
            f"{field['count']} {label(field['bean'])}" if field["bean"] else "empty"
            for field in seat["fields"]
        )
        active = "*" if seat["seat"] == document["active_seat"] else " "
        lines.append(f"{active} {seat['name']}: [{fields}]")
        if seat["hand"] is None:
            count = seat["hand_size"]
            hand = f"{count} card{'' if count == 1 else 's'}"
        else:
            hand = " ".join(label(bean) for bean in seat["hand"]) or "—"
        lines.append(f"    hand: {hand}")
        coins = "hidden" if seat["coins"] is None else str(seat["coins"])
        trade_area = (
            f" · trade area: {beans_text(seat['trade_area'])}" if seat["trade_area"] else ""
        )
        lines.append(f"    coins: {coins}{trade_area}")
    result = document["result"]
    if result is not None:
        scores = ", ".join(f"{names[s]} {score}" for s, score in enumerate(result["scores"]))
        winners = " and ".join(names[s] for s in result["winners"])
        lines.append(f"game over — {scores}; won by {winners}")
    return "\n".join(lines)


def _piles(document: dict[str, Any]) -> str:
    draw, discard = document["draw_pile"], document["discard_pile"]
    text = f"draw pile {draw['size']}"
    if draw.get("cards"):
        cards = draw["cards"]
        if document["mode"] == "digital":
            shown = " ".join(label(bean) for bean in cards[:DRAW_PILE_SHOWN])
            text += f" (top first: {shown}{' …' if len(cards) > DRAW_PILE_SHOWN else ''})"
        else:
            text += f" ({beans_text(cards)})"
    text += f" · discard pile {discard['size']}"
    if discard["top"] is not None:
        text += f" (top {label(discard['top'])})"
    text += f" · exhausted {document['exhaustions']}/{document['game_ends_on_exhaustion']}"
    return text


def step_heading(step: Step, total: int, names: tuple[str, ...] | list[str]) -> str:
    """E.g. "Step 57/812 · turn 3 · trade · Ana"."""
    actor = "" if step.actor is None else f" · {names[step.actor]}"
    return f"Step {step.position}/{total} · turn {step.turn} · {step.phase}{actor}"


def change_line(change: Change) -> str:
    """E.g. "/seats/1/hand_size: 5 → 6"."""
    return f"{change.path}: {_value(change.before)} → {_value(change.after)}"


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(label(item) for item in value) if value else "none"
    if isinstance(value, str):
        return label(value)
    return json.dumps(value, ensure_ascii=False)
