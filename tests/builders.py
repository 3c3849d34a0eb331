"""Test support: set up an exact table for a rules scenario, and play commands on it.

`table(...)` describes a position the way a rulebook example does — who holds which cards, which
field holds how many of which bean, whose turn and which phase — and puts every card not placed
explicitly somewhere on the table, so each card of the ruleset exists exactly once (RULES §4.4):

    table(players=3, hands={0: "chili blue"}, fields={0: ["3 chili", ""]}, draw_pile="red soy ...")

Cards are written as bean ids separated by spaces, front (or bottom) first; a number repeats the
bean after it ("3 chili"). The token `...` stands for every card not placed elsewhere and may appear
in one place: the draw pile, the discard pile or a coin pile. Without it, the rest of the deck is the
draw pile, or — when the draw pile is given — lies at the bottom of the discard pile. A coin pile
may also be given as a number of coins, taken from the most plentiful beans left.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from domain.rules import (
    GameState,
    Phase,
    RuleViolation,
    decide,
    fold,
    legal_commands,
    resolve_ruleset,
    start_game,
)
from domain.rules.commands import Command, Deal, Draw, Offer, Reveal
from domain.rules.events import Event
from domain.rules.evolve import full_deck
from domain.rules.rulesets import Ruleset
from domain.rules.state import DIGITAL, EMPTY_FIELD, TABLETOP, Field

NAMES = ("Ana", "Ben", "Cy", "Dee", "Eve", "Flo", "Gus")
"""Seat names, clockwise from seat 0."""

REST = "..."

Cards = str | Sequence[str]


def cards(text: Cards) -> tuple[str, ...]:
    """Bean ids from "chili 2 blue" (→ chili, blue, blue) or from a list of such words."""
    words = text.split() if isinstance(text, str) else list(text)
    result: list[str] = []
    repeat = 1
    for word in words:
        if word.isdigit():
            repeat = int(word)
            continue
        result += [word] * repeat
        repeat = 1
    return tuple(result)


def field(text: str) -> Field:
    """A field from "3 chili", "chili" (one card) or "" (empty)."""
    beans = cards(text)
    if not beans:
        return EMPTY_FIELD
    if len(set(beans)) != 1:
        raise ValueError(f"a field holds one bean type, not {text!r}")
    return Field(beans[0], len(beans))


def table(
    players: int = 4,
    preset: str = "rio-grande",
    *,
    options: Mapping[str, object] | None = None,
    mode: str = DIGITAL,
    seed: int = 1,
    start_seat: int = 0,
    active: int | None = None,
    phase: Phase | str = Phase.PLANT,
    planted: int = 0,
    hands: Mapping[int, Cards] | None = None,
    fields: Mapping[int, Sequence[str]] | None = None,
    trade_areas: Mapping[int, Cards] | None = None,
    coins: Mapping[int, Cards | int] | None = None,
    revealed: Cards = "",
    draw_pile: Cards | None = None,
    discard: Cards = "",
    exhaustions: int = 0,
    final_pass: bool = False,
) -> GameState:
    """An exact game state: the named zones as given, the rest of the deck where `...` says.

    `final_pass` counts the exhaustions so far as one fewer than end the game (RULES §10.3).
    """
    ruleset = resolve_ruleset(preset, players, options)
    if final_pass:
        exhaustions = ruleset.end_on_exhaustion - 1
    names = list(NAMES[:players])
    empty = fold(start_game(ruleset, names, start_seat=start_seat, mode=TABLETOP))
    hands, fields, trade_areas, coins = hands or {}, fields or {}, trade_areas or {}, coins or {}

    layout = _Layout(full_deck(ruleset), f"the {preset} {players}-player deck")
    hand_cards = {seat: layout.take(cards(text)) for seat, text in hands.items()}
    area_cards = {seat: layout.take(cards(text)) for seat, text in trade_areas.items()}
    field_rows = {seat: tuple(field(text) for text in rows) for seat, rows in fields.items()}
    for rows in field_rows.values():
        for planted_field in rows:
            layout.take((planted_field.bean,) * planted_field.count)
    shown = layout.take(cards(revealed))

    discards = layout.take(cards(discard))
    pile = None if draw_pile is None else layout.take(cards(draw_pile))
    coin_cards = {
        seat: layout.take(cards(spec)) for seat, spec in coins.items() if not isinstance(spec, int)
    }
    coin_cards |= {seat: layout.take_any(n) for seat, n in coins.items() if isinstance(n, int)}
    rest_given = REST in (*discards, *(card for spec in coin_cards.values() for card in spec))
    if pile is None:
        pile = () if rest_given else (REST,)
    if REST not in pile and not rest_given:
        discards = (REST, *discards)
    pile = layout.fill(pile)
    discards = layout.fill(discards)
    coin_cards = {seat: layout.fill(coin_pile) for seat, coin_pile in coin_cards.items()}
    layout.check_all_placed()

    seats = []
    for seat, player in enumerate(empty.players):
        rows = field_rows.get(seat, ())
        rows += (EMPTY_FIELD,) * (ruleset.fields_at_start - len(rows))
        seats.append(
            player.replace(
                hand=hand_cards.get(seat, ()),
                fields=rows,
                trade_area=area_cards.get(seat, ()),
                coins=coin_cards.get(seat, ()),
                bought_field=len(rows) > ruleset.fields_at_start,
            )
        )
    if mode == TABLETOP:
        pile = tuple(sorted(pile, key=ruleset.beans.index))
    return empty.replace(
        mode=mode,
        seed=seed if mode == DIGITAL else None,
        players=tuple(seats),
        draw_pile=pile,
        discard_pile=discards,
        revealed=shown,
        exhaustions=exhaustions,
        reshuffles=exhaustions,
        phase=Phase(phase),
        active=start_seat if active is None else active,
        turn=1,
        planted=planted,
    )


class _Layout:
    """The cards of a deck still to be placed on the table."""

    def __init__(self, deck: Iterable[str], name: str) -> None:
        self.left = Counter(deck)
        self.order = list(dict.fromkeys(deck))
        self.name = name
        self.rest_placed = False

    def take(self, beans: Iterable[str]) -> tuple[str, ...]:
        beans = tuple(beans)
        wanted = Counter(bean for bean in beans if bean != REST)
        for bean, n in wanted.items():
            if n > self.left[bean]:
                raise ValueError(
                    f"table(): {n} more {bean!r} placed, but {self.name} has only "
                    f"{self.left[bean]} left"
                )
        self.left -= wanted
        return beans

    def take_any(self, n: int) -> tuple[str, ...]:
        """`n` cards of whatever is left, most plentiful types first (for coin piles)."""
        chosen = [bean for bean in self.order for _ in range(self.left[bean])][:n]
        if len(chosen) < n:
            raise ValueError(f"table(): only {len(chosen)} cards are left for a coin pile of {n}")
        return self.take(chosen)

    def fill(self, zone: tuple[str, ...]) -> tuple[str, ...]:
        """`zone` with `...` replaced by every card still unplaced, in bean-table order."""
        if REST not in zone:
            return zone
        if self.rest_placed or zone.count(REST) > 1:
            raise ValueError("table(): '...' may stand in one place only")
        self.rest_placed = True
        rest = tuple(bean for bean in self.order for _ in range(self.left[bean]))
        self.left = Counter()
        at = zone.index(REST)
        return zone[:at] + rest + zone[at + 1 :]

    def check_all_placed(self) -> None:
        if +self.left:
            raise ValueError(f"table(): cards left unplaced: {dict(+self.left)}")


def start(
    players: int = 4,
    preset: str = "rio-grande",
    *,
    seed: int = 1,
    deck: Sequence[str] | None = None,
    start_seat: int = 0,
    mode: str = DIGITAL,
) -> tuple[GameState, list[Event]]:
    """A game just begun with `start_game` (dealt, in digital games), and the events that began it."""
    ruleset = resolve_ruleset(preset, players)
    names = NAMES[:players]
    if mode == TABLETOP:
        events = start_game(ruleset, names, start_seat=start_seat, mode=TABLETOP)
    else:
        events = start_game(ruleset, names, start_seat=start_seat, seed=seed, deck=deck)
    return fold(events), events


def run(state: GameState, *commands: Command) -> tuple[GameState, list[Event]]:
    """Decide and apply each command in turn; the final state and every event, in order."""
    events: list[Event] = []
    for command in commands:
        decided = decide(state, command)
        state = fold(decided, state)
        events += decided
    return state, events


def rejection(state: GameState, *commands: Command) -> str:
    """The message of the RuleViolation that playing `commands` raises; AssertionError if none."""
    try:
        run(state, *commands)
    except RuleViolation as violation:
        return str(violation)
    raise AssertionError(f"the rules allowed {commands}")


def kinds(events: Iterable[Event]) -> list[str]:
    """The event type names, e.g. ["CardDrawn", "DeckExhausted", ...]."""
    return [event.kind for event in events]


def random_game(
    players: int = 4, preset: str = "rio-grande", *, mode: str = DIGITAL, seed: int = 0
) -> Iterator[GameState]:
    """Every state of one game played to its end by random legal commands and trade offers, for
    properties that hold at every step. Tabletop games name cards that could come off the pile."""
    rng = random.Random(f"{preset}/{players}/{mode}/{seed}")
    state, _ = start(players, preset, seed=seed, mode=mode)
    if mode == TABLETOP:
        pile = iter(rng.sample(state.draw_pile, len(state.draw_pile)))
        sizes = [state.ruleset.deal[seat] for seat in range(players)]
        state, _ = run(state, Deal(tuple(tuple(next(pile) for _ in range(n)) for n in sizes)))
    for _ in range(5000):
        yield state
        if state.is_over:
            return
        seat = rng.choice((state.active, state.active, rng.randrange(players)))
        command = _random_command(rng, state, seat)
        if command is not None:
            state, _ = run(state, command)
    raise AssertionError(f"a random {preset} game of {players} players did not end")


def _random_command(rng: random.Random, state: GameState, seat: int) -> Command | None:
    legal = legal_commands(state, seat)
    if legal.chance:
        cards = seen_at_the_table(rng, state, legal.chance.count)
        return (Reveal if legal.chance.kind == "reveal" else Draw)(seat, cards)
    offer = legal.offer
    if offer and offer.hand + offer.revealed and rng.random() < 0.3:
        hand = tuple(rng.sample(offer.hand, min(len(offer.hand), rng.randint(0, 2))))
        revealed = tuple(rng.sample(offer.revealed, rng.randint(0, len(offer.revealed))))
        wants = tuple(rng.sample(offer.wants, rng.randint(0 if hand or revealed else 1, 1)))
        return Offer(seat, rng.choice(offer.to), hand=hand, revealed=revealed, wants=wants)
    return rng.choice(legal.commands) if legal.commands else None


def seen_at_the_table(rng: random.Random, state: GameState, count: int) -> tuple[str, ...]:
    """Cards a tabletop recorder could see coming off the pile: the pile's own (with unknown
    hands, beans it still hides), then (if the pile runs out before the final pass) cards of the
    discard pile that is reshuffled into a new one."""
    seen = rng.sample(state.unseen_beans(), min(count, len(state.draw_pile)))
    if len(seen) < count and state.exhaustions + 1 < state.ruleset.end_on_exhaustion:
        seen += rng.sample(state.discard_pile, min(count - len(seen), len(state.discard_pile)))
    return tuple(seen)


def house_rules(changes: Callable[[Ruleset], dict[str, Any]], players: int = 4) -> Ruleset:
    """The rio-grande ruleset with `changes` made beyond its options, still named rio-grande:
    the rules of a table that played its own, under a preset's name."""
    ruleset = resolve_ruleset("rio-grande", players)
    return dataclasses.replace(ruleset, **changes(ruleset))
