"""Audit a game's facts against the invariants every legal game keeps.

Independent of `decide`: it only folds the facts and checks, after each one, that every card of
each bean type is accounted for (RULES §4.4), hand order never changes (§4.1–4.2), no field mixes
beans (§4.3), harvests pay by the beanometer (§1.2), scores equal the coins earned (§10.6), and the
game ends exactly when its ruleset says (§10.2–10.5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from . import events as ev
from .beans import coins_for, label
from .evolve import evolve
from .state import GameState, Phase


@dataclass(frozen=True, slots=True)
class Problem:
    """An invariant broken by the fact at `position` (1 = the first fact)."""

    position: int
    fact: str
    message: str

    def __str__(self) -> str:
        return f"fact {self.position} ({self.fact}): {self.message}"


def cards_on_table(state: GameState) -> Counter[str]:
    """Every card in every zone, by bean (coins are bean cards turned over)."""
    counts: Counter[str] = Counter()
    for zone in (state.draw_pile, state.discard_pile, state.removed, state.revealed):
        counts.update(zone)
    counts.update(state.duel_offer)
    for player in state.players:
        counts.update(player.hand)
        counts.update(player.trade_area)
        counts.update(player.coins)
        for field in player.fields:
            if field.bean is not None:
                counts[field.bean] += field.count
    return counts


def _is_subsequence(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    remaining = iter(whole)
    return all(card in remaining for card in part)


def check_state(state: GameState) -> list[str]:
    """Invariants of one table: conservation of cards and well-formed fields."""
    problems = []
    counts = cards_on_table(state)
    for bean in state.ruleset.beans:
        if counts[bean] != state.ruleset.counts[bean]:
            problems.append(
                f"{counts[bean]} {label(bean)} on the table, the deck has {state.ruleset.counts[bean]}"
            )
    strays = set(counts) - set(state.ruleset.beans)
    if strays:
        problems.append(f"cards not in play: {', '.join(sorted(strays))}")
    for player in state.players:
        for index, field in enumerate(player.fields):
            if (field.count > 0) != (field.bean is not None) or field.count < 0:
                problems.append(f"{player.name}'s field {index + 1} is malformed: {field}")
        if len(player.fields) > 3:
            problems.append(f"{player.name} has {len(player.fields)} fields")
    return problems


def check_step(before: GameState, fact: ev.Event, after: GameState) -> list[str]:
    problems = check_state(after)
    for seat, (old, new) in enumerate(zip(before.players, after.players, strict=True)):
        added = 0
        if isinstance(fact, ev.CardDrawn) and fact.seat == seat:
            added = 1
        elif isinstance(fact, ev.CardsDealt):
            added = len(fact.hands[seat])
        kept = new.hand[: len(new.hand) - added]
        if not _is_subsequence(kept, old.hand):
            problems.append(f"{new.name}'s hand changed order: {old.hand} → {new.hand}")
        if (
            isinstance(fact, ev.BeanPlanted)
            and fact.source == "hand"
            and fact.seat == seat
            and (old.hand[:1] != (fact.bean,) or new.hand != old.hand[1:])
        ):
            problems.append(f"{new.name} planted {fact.bean}, not the front card of {old.hand}")
    if isinstance(fact, ev.FieldHarvested):
        due = coins_for(before.ruleset.meters[fact.bean], fact.count)
        if fact.coins != due:
            problems.append(f"{fact.count} {label(fact.bean)} pay {due} coins, not {fact.coins}")
    return problems


class _Ending:
    """Tracks where the end was triggered to check that the game ends exactly then (§10.4–10.5)."""

    def __init__(self) -> None:
        self.triggered_in: Phase | None = None
        self.ended = False

    def check(self, before: GameState, fact: ev.Event, after: GameState) -> list[str]:
        if self.ended:
            return ["a fact was recorded after the game ended"]
        if isinstance(fact, ev.DrawFailed):
            rules = before.ruleset
            last_pass = before.exhaustions >= rules.end_on_exhaustion
            h3 = rules.end_trigger == "failed-draw"
            if not (h3 and last_pass and not before.draw_pile):
                return ["a draw failed although the rules had a card for it"]
            return []
        if isinstance(fact, ev.DeckExhausted) and fact.final:
            self.triggered_in = before.phase
            return []
        if isinstance(fact, ev.GameEnded):
            self.ended = True
            return self._ended(before)
        if self.triggered_in is None:
            return []
        if isinstance(fact, ev.CardDrawn | ev.CardsRevealed) and fact_has_cards(fact):
            return ["a card came off the draw pile after its final exhaustion"]
        if self.triggered_in is Phase.DRAW and not _final_harvest(fact):
            return ["the end came during phase 4, yet the game went on (RULES §10.5)"]
        if isinstance(fact, ev.TurnEnded):
            return ["the end came during phase 2, yet another turn began (RULES §10.4)"]
        return []

    def _ended(self, before: GameState) -> list[str]:
        rules = before.ruleset
        if self.triggered_in is None:
            h3 = (
                rules.end_trigger == "failed-draw" and before.exhaustions >= rules.end_on_exhaustion
            )
            return [] if h3 else ["the game ended without its final exhaustion"]
        unfinished = before.revealed or any(p.trade_area for p in before.players)
        if self.triggered_in is not Phase.DRAW and unfinished:
            return ["the game ended before phase 3 was finished (RULES §10.4, §11.4)"]
        return []


def fact_has_cards(fact: ev.CardDrawn | ev.CardsRevealed) -> bool:
    return isinstance(fact, ev.CardDrawn) or bool(fact.cards)


def _final_harvest(fact: ev.Event) -> bool:
    return isinstance(fact, ev.FieldHarvested) and fact.final


def audit(facts: Iterable[ev.Event]) -> list[Problem]:
    """Every invariant broken anywhere in the game, in order; [] for a sound game."""
    problems: list[Problem] = []
    state: GameState | None = None
    ending = _Ending()
    earned: Counter[int] = Counter()
    for position, fact in enumerate(facts, start=1):
        after = evolve(state, fact)
        found = [] if state is None else check_step(state, fact, after)
        if state is not None:
            found += ending.check(state, fact, after)
        if isinstance(fact, ev.FieldHarvested):
            earned[fact.seat] += fact.coins
        elif isinstance(fact, ev.ThirdFieldBought):
            earned[fact.seat] -= len(fact.coins)
        elif isinstance(fact, ev.GameEnded):
            for seat, score in enumerate(fact.scores):
                coins = len(after.players[seat].coins)
                if not score == coins == earned[seat]:
                    found.append(
                        f"seat {seat} scored {score} with {coins} coins, {earned[seat]} earned"
                    )
        problems += [Problem(position, fact.kind, message) for message in found]
        state = after
    return problems
