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
from itertools import chain

from . import events as ev
from .beans import coins_for, label
from .evolve import scan
from .state import GameState, Phase, is_hidden, pile_of


@dataclass(frozen=True, slots=True)
class Problem:
    """An invariant broken by the fact at `position` (1 = the first fact)."""

    position: int
    fact: str
    message: str

    def __str__(self) -> str:
        return f"fact {self.position} ({self.fact}): {self.message}"


def cards_on_table(state: GameState) -> Counter[str]:
    """Every card in every zone, by bean (coins are bean cards turned over). In a game with
    unknown hands, the cards nobody has seen count as the beans their draw piles still hide."""
    players = state.players
    # Counted whole (in C), then rid of the cards nobody has seen: they are counted by pool.
    counts = Counter(
        chain(
            state.draw_pile,
            state.discard_pile,
            state.removed,
            state.revealed,
            *(player.hand for player in players),
        )
    )
    for card in [card for card in counts if is_hidden(card)]:
        del counts[card]
    counts.update(
        chain(
            state.duel_offer,
            *state.pools,
            *(player.trade_area for player in players),
            *(player.coins for player in players),
        )
    )
    for player in players:
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
    problems += _unseen_problems(state)
    for player in state.players:
        for index, field in enumerate(player.fields):
            if (field.count > 0) != (field.bean is not None) or field.count < 0:
                problems.append(f"{player.name}'s field {index + 1} is malformed: {field}")
        if len(player.fields) > 3:
            problems.append(f"{player.name} has {len(player.fields)} fields")
    return problems


def _planted_front(fact: ev.BeanPlanted, old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """A plant from the hand takes the front card: that bean, or a card nobody had seen."""
    front_ok = old[:1] == (fact.bean,) or (bool(old) and pile_of(old[0]) is not None)
    return front_ok and new == old[1:]


def _unseen_problems(state: GameState) -> list[str]:
    """A game with unknown hands: each draw pile hides exactly as many beans as it has cards
    nobody has seen, in the pile (only the current one) and in hands."""
    if not state.pools:
        cards = set(chain.from_iterable(player.hand for player in state.players))  # a few beans
        return (
            ["a card nobody has seen is in a game with known hands"]
            if any(pile_of(card) is not None for card in cards)
            else []
        )
    slots = Counter(
        pile_of(card) for player in state.players for card in player.hand if is_hidden(card)
    )
    slots[state.reshuffles] += sum(1 for card in state.draw_pile if is_hidden(card))
    return [
        f"draw pile {pile} hides {len(pool)} beans for {slots[pile]} unseen cards"
        for pile, pool in enumerate(state.pools)
        if len(pool) != slots[pile]
    ]


def check_step(before: GameState, fact: ev.Event, after: GameState) -> list[str]:
    problems = check_state(after)
    for seat, (old, new) in enumerate(zip(before.players, after.players, strict=True)):
        added = 0
        if isinstance(fact, ev.CardDrawn) and fact.seat == seat:
            added = 1
        elif isinstance(fact, ev.CardsDealt):
            added = len(fact.hands[seat])
        kept = new.hand[: len(new.hand) - added]
        if (isinstance(fact, ev.HandShown) and fact.seat == seat) or (
            isinstance(fact, ev.TradeOffered) and fact.proposer == seat
        ):  # cards nobody had seen are named where they lie
            kept = tuple(
                card if pile_of(card) is not None else shown
                for card, shown in zip(old.hand, new.hand, strict=False)
            )
        if not _is_subsequence(kept, old.hand):
            problems.append(f"{new.name}'s hand changed order: {old.hand} → {new.hand}")
        if (
            isinstance(fact, ev.BeanPlanted)
            and fact.source == "hand"
            and fact.seat == seat
            and not _planted_front(fact, old.hand, new.hand)
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
            return self._draw_failed(before)
        if isinstance(fact, ev.DeckExhausted):
            if fact.final:
                self.triggered_in = before.phase
            return _exhaustion_problems(before, fact)
        if isinstance(fact, ev.DiscardsReshuffled) and _empty_discards_end(before):
            return ["the discard pile was empty at the reshuffle, yet the game went on (§14 E6)"]
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

    def _draw_failed(self, before: GameState) -> list[str]:
        """A failed draw ends the game at once on the last pass under the failed-draw house rule
        (§12.1 H3), or triggers the end when the deferred reshuffle finds no discards (§14 E6)."""
        rules = before.ruleset
        last_pass = before.exhaustions >= rules.end_on_exhaustion
        if before.draw_pile:
            return ["a draw failed although the draw pile held cards"]
        if last_pass and rules.end_trigger == "failed-draw":
            return []
        if not last_pass and before.reshuffles < before.exhaustions and _empty_discards_end(before):
            self.triggered_in = before.phase
            return []
        return ["a draw failed although the rules had a card for it"]

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


def _empty_discards_end(state: GameState) -> bool:
    """Whether a reshuffle now ends the game: nothing to shuffle under end-game (§14 E6)."""
    return not state.discard_pile and state.ruleset.empty_reshuffle == "end-game"


def _exhaustion_problems(before: GameState, fact: ev.DeckExhausted) -> list[str]:
    """An exhaustion is the next one and final exactly when the ruleset says (§10.2–10.3): on the
    last pass under last-card, or when the immediate reshuffle would find no discards (§14 E6;
    with on-next-draw that is judged at the reshuffle, §10.9)."""
    rules = before.ruleset
    if fact.count != before.exhaustions + 1:
        return [f"exhaustion {fact.count} follows exhaustion {before.exhaustions}"]
    last_pass = fact.count >= rules.end_on_exhaustion
    immediate = rules.reshuffle == "immediate"
    due = (last_pass and rules.end_trigger == "last-card") or (
        immediate and not last_pass and _empty_discards_end(before)
    )
    if fact.final == due:
        return []
    return [
        f"exhaustion {fact.count} was {'' if fact.final else 'not '}final; the rules make it "
        f"{'final' if due else 'not final'} (§10.2, §14 E6)"
    ]


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
    facts = list(facts)
    for position, (fact, after) in enumerate(zip(facts, scan(facts), strict=True), start=1):
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
