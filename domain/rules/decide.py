"""decide(state, command) → events: check a command against the rules, return the facts it causes.

A command that breaks a rule raises RuleViolation naming the RULES section; one that makes no sense
in any game raises MalformedCommand. Facts that follow with no choice left — the reshuffle when the
draw pile runs out, the final harvest and scores when the game ends — are decided here as well, so
the returned list is everything that happened.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from . import commands as cmd
from . import events as ev
from .beans import beans_text, coins_for, label
from .errors import InvalidRuleset, InvalidSetup, MalformedCommand, RuleViolation
from .evolve import evolve, full_deck, remove_cards
from .names import name_key, name_problem
from .rulesets import (
    MOST_HAND_CARDS,
    SEAT_DISTANCE,
    Ruleset,
    check_deal,
    player_count_section,
)
from .state import (
    DIGITAL,
    HANDS,
    KNOWN_HANDS,
    MODES,
    TABLETOP,
    UNSEEN,
    GameState,
    Offer,
    Phase,
    pile_of,
)
from .table import (
    buy_field_blocker,
    field_name,
    field_text,
    hand_card_problem,
    missing,
    pile_shortfall,
    protection_blocker,
)


class _Decision:
    """The facts decided so far and the table they lead to, after each of them."""

    __slots__ = ("events", "state", "states")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[ev.Event] = []
        self.states: list[GameState] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)
        self.states.append(self.state)


def shuffled(cards: Sequence[str], seed: int, shuffle_number: int) -> list[str]:
    """`cards` in the order of the game's `shuffle_number`-th shuffle (0: the deck at the start)."""
    order = list(cards)
    random.Random(f"bohnanza/{seed}/shuffle/{shuffle_number}").shuffle(order)
    return order


def deal_order(ruleset: Ruleset, start_seat: int) -> list[int]:
    """Seats in the order they receive cards: one at a time, round-robin from the start seat,
    skipping seats that have their full hand (RULES §3.4, E19)."""
    players = ruleset.players
    owed = [ruleset.deal[(seat - start_seat) % players] for seat in range(players)]
    order: list[int] = []
    while any(owed):
        for offset in range(players):
            seat = (start_seat + offset) % players
            if owed[seat]:
                order.append(seat)
                owed[seat] -= 1
    return order


def start_game(
    ruleset: Ruleset,
    seats: Sequence[str],
    *,
    start_seat: int = 0,
    mode: str = DIGITAL,
    seed: int | None = None,
    deck: Sequence[str] | None = None,
    sandbox: bool = False,
    hands: str = KNOWN_HANDS,
) -> list[ev.Event]:
    """The facts that start a game: GameStarted, and the deal in digital games and in tabletop
    games with unknown `hands` (how many cards each seat got, none named). A `sandbox` game (a
    what-if fork) is played like any other and counted in no standing. InvalidRuleset for a
    ruleset no game can start under (a deal larger than the deck), in either mode: a tabletop
    game would otherwise start and fail only at its deal."""
    names = [name.strip() if isinstance(name, str) else name for name in seats]
    if len(names) != ruleset.players:
        raise InvalidRuleset(
            f"the ruleset was resolved for {ruleset.players} players, not {len(names)} seats",
            section=player_count_section(ruleset.preset),
        )
    check_deal(ruleset)
    if any(not isinstance(name, str) or not name for name in names):
        raise InvalidSetup("seats", "every seat needs a non-empty name", "3.1")
    for seat, name in enumerate(names):
        problem = name_problem(name)
        if problem is not None:
            raise InvalidSetup("seats", f"seat {seat}'s name {name!r}: {problem}", "3.1")
    if len({name_key(name) for name in names}) != len(names):
        raise InvalidSetup(
            "seats",
            "seat names must differ (spaces around them and invisible joiners do not count): "
            f"{', '.join(names)}",
            "3.1",
        )
    if not 0 <= start_seat < len(names):
        raise InvalidSetup(
            "start_seat",
            f"start seat {start_seat} does not exist; seats are 0–{len(names) - 1}",
            "3.2",
        )
    if mode not in MODES:
        raise InvalidSetup("mode", f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if hands not in HANDS:
        raise InvalidSetup("hands", f"hands must be one of {', '.join(HANDS)}, not {hands!r}")
    if mode == TABLETOP:
        if seed is not None or deck is not None:
            raise InvalidSetup(
                "seed" if seed is not None else "deck",
                "tabletop games learn each card as it is drawn: no seed or deck",
            )
        started = ev.GameStarted(
            ruleset.to_dict(), names, start_seat, mode, None, None, sandbox, hands
        )
        if hands == KNOWN_HANDS:
            return [started]
        unseen: list[list[str]] = [[] for _ in names]
        for seat in deal_order(ruleset, start_seat):
            unseen[seat].append(UNSEEN)
        return [started, ev.CardsDealt(unseen)]
    if hands != KNOWN_HANDS:
        raise InvalidSetup("hands", "only tabletop games have unknown hands")
    if seed is None:
        raise InvalidSetup("seed", "digital games need a seed for their shuffles")
    cards = full_deck(ruleset)
    if deck is None:
        order = shuffled(cards, seed, 0)
    else:
        order = [bean.lower() if isinstance(bean, str) else bean for bean in deck]
        if sorted(map(str, order)) != sorted(cards):
            raise InvalidSetup(
                "deck",
                f"an explicit deck must hold exactly the {len(cards)} cards of the ruleset "
                f"({', '.join(f'{ruleset.counts[b]} {label(b)}' for b in ruleset.beans)})",
                "3.3",
            )
    dealt: list[list[str]] = [[] for _ in names]
    for position, seat in enumerate(deal_order(ruleset, start_seat)):
        dealt[seat].append(order[position])
    started = ev.GameStarted(ruleset.to_dict(), names, start_seat, mode, seed, list(order), sandbox)
    return [started, ev.CardsDealt(dealt)]


def decide(state: GameState, command: cmd.Command) -> list[ev.Event]:
    """The facts `command` causes on `state`, or RuleViolation / MalformedCommand."""
    return decided(state, command)[0]


def decided(state: GameState, command: cmd.Command) -> tuple[list[ev.Event], list[GameState]]:
    """`decide`, with the table after each of the facts (deciding folds them as it goes)."""
    if isinstance(command, cmd.Correct | cmd.Undo):
        raise MalformedCommand(
            "a correction changes the game's record, not its table (domain.rules.errata)"
        )
    if state.phase is Phase.ENDED and not isinstance(command, cmd.ShowHand):
        raise RuleViolation("10", "the game is over; no more commands are accepted")
    seat = getattr(command, "seat", None)
    if seat is not None and not 0 <= seat < len(state.players):
        raise MalformedCommand(
            f"seat {seat} does not exist; this game has seats 0–{len(state.players) - 1}"
        )
    decision = _Decision(state)
    _HANDLERS[type(command)](decision, command)
    if decision.state.end_triggered and decision.state.phase is Phase.DRAW:
        _end_game(decision)
    return decision.events, decision.states


# --- checks shared by the handlers -----------------------------------------------------------


def _require_active(s: GameState, seat: int, section: str, doing: str) -> None:
    if seat != s.active:
        raise RuleViolation(
            section, f"{s.name(seat)} cannot {doing}: it is {s.name(s.active)}'s turn"
        )


def _turn_section(s: GameState, section: str) -> str:
    """`section` of the 3–7 player turn (RULES §5), or §11.2 in the duel, whose turn has its
    own steps."""
    return "11.2" if s.ruleset.duel else section


def _field_index(s: GameState, seat: int, index: int) -> int:
    player = s.players[seat]
    if not 0 <= index < 3:
        raise MalformedCommand(f"field index {index} does not exist; fields are numbered 0–2")
    if index >= len(player.fields):
        rules = s.ruleset
        if not rules.third_field:
            raise RuleViolation(
                "9.4",
                f"{player.name} has no {field_name(index)}: under {rules.preset}, "
                f"{rules.players} players have {len(player.fields)} fields for the whole game "
                "and none for sale",
            )
        raise RuleViolation("9.1", f"{player.name} has no {field_name(index)}: no third field yet")
    return index


def _hand_positions(
    s: GameState,
    seat: int,
    positions: Sequence[int],
    beans: Sequence[str] | None = None,
    already: Counter[tuple[int, str]] | None = None,
) -> list[str]:
    """The beans of the hand cards at `positions`, in hand order. `beans` names them, in the order
    of `positions`: required for a card nobody has seen, checked for a known one (RULES §4.4),
    beside the (pile, bean) pairs `already` named for other cards of the same step."""
    hand = s.players[seat].hand
    twice = [position for position, n in Counter(positions).items() if n > 1]
    if twice:
        raise MalformedCommand(f"{s.name(seat)} names hand position {twice[0]} twice", "4.2")
    for position in positions:
        if not 0 <= position < len(hand):
            raise MalformedCommand(
                f"hand position {position} does not exist; {s.name(seat)} holds {len(hand)} "
                f"card{'s' if len(hand) != 1 else ''} (positions 0–{len(hand) - 1})",
                "4.2",
            )
    if beans is None:
        unseen = [position for position in positions if pile_of(hand[position]) is not None]
        if unseen:
            raise MalformedCommand(
                f"nobody has seen {s.name(seat)}'s card at hand position "
                f"{', '.join(str(p) for p in unseen)}: name its bean (hand_beans)"
            )
        return [hand[position] for position in sorted(positions)]
    if len(beans) != len(positions):
        raise MalformedCommand(
            f"hand_beans names {len(beans)} beans for {len(positions)} hand positions"
        )
    _in_play(s, beans)
    named: Counter[tuple[int, str]] = Counter(already)
    for position, bean in zip(positions, beans, strict=True):
        problem = hand_card_problem(s, seat, position, bean, named)
        if problem is not None:
            raise RuleViolation("4.4", problem)
        pile = pile_of(hand[position])
        if pile is not None:
            named[(pile, bean)] += 1
    by_position = dict(zip(positions, beans, strict=True))
    return [by_position[position] for position in sorted(positions)]


def _front_card(s: GameState, seat: int, bean: str | None) -> str:
    """The bean of the front hand card: the known card (checked against `bean`, RULES §5.1.2), or
    `bean` for a card nobody has seen, if its draw pile may still hold it (RULES §4.4)."""
    player = s.players[seat]
    front = player.hand[0]
    if pile_of(front) is None:
        if bean is not None and bean != front:
            raise RuleViolation(
                "5.1.2",
                f"{player.name}'s front card is {label(front)}, not {label(bean)}: "
                "cards are planted from the front of the hand",
            )
        return front
    if bean is None:
        raise MalformedCommand(f"nobody has seen {player.name}'s front card: name its bean")
    _in_play(s, [bean])
    problem = hand_card_problem(s, seat, 0, bean, Counter())
    if problem is not None:
        raise RuleViolation("4.4", problem)
    return bean


def _in_play(s: GameState, beans: Sequence[str]) -> None:
    for bean in beans:
        if bean not in s.ruleset.counts:
            raise RuleViolation(
                "2",
                f"{label(bean)} is not in play ({s.ruleset.preset}, {s.ruleset.players} players)",
            )


# --- planting ----------------------------------------------------------------------------------


def _plant_into(d: _Decision, seat: int, index: int, bean: str, source: str) -> None:
    """Plant `bean` into field `index`, harvesting first under the implicit-harvest house rule."""
    s = d.state
    player = s.players[seat]
    field = player.fields[_field_index(s, seat, index)]
    if field.bean is not None and field.bean != bean:
        if not s.ruleset.implicit_harvest:
            raise RuleViolation(
                "7.1",
                f"{player.name} cannot plant {label(bean)} on {field_text(player, index)}: "
                "a field holds one bean type; harvest it first",
            )
        _harvest(d, seat, index, implied_by=bean)
    d.emit(ev.BeanPlanted(seat, bean, index, source))


def _plant(d: _Decision, c: cmd.Plant) -> None:
    s = d.state
    player = s.players[c.seat]
    phase = s.phase
    if phase is Phase.PLANT:
        _require_active(s, c.seat, _turn_section(s, "5.1"), "plant from the hand")
        if s.hand_discarded:
            raise RuleViolation("11.2", f"{player.name} discarded a hand card; planting is over")
        if not player.hand:
            raise RuleViolation("5.1", f"{player.name} has no cards in hand to plant")
        if s.planted >= 2:
            raise RuleViolation("5.1.3", f"{player.name} has planted two cards; never a third")
        _plant_into(d, c.seat, c.field, _front_card(s, c.seat, c.bean), "hand")
        return
    if phase is Phase.PLANT_TRADED:
        pool, source, where = player.trade_area, "trade-area", "trade area"
    elif phase is Phase.RESOLVE_OFFER:
        _require_active(s, c.seat, "11.2", "plant offered cards")
        pool, source, where = s.duel_offer, "offer", "offer"
    elif phase is Phase.PLANT_DRAWN:
        _require_active(s, c.seat, "11.2", "plant drawn cards")
        pool, source, where = s.revealed, "revealed", "drawn cards"
    elif phase is Phase.TRADE:
        raise RuleViolation(
            "5.3", "cards are planted in phase 3, once the active player ends trading"
        )
    elif phase is Phase.DRAW:
        raise RuleViolation(
            _turn_section(s, "5.4"), f"{s.name(s.active)} must draw now; nothing is left to plant"
        )
    else:
        raise RuleViolation("3.4", "the cards have not been dealt yet")
    section = "5.3" if phase is Phase.PLANT_TRADED else "11.2"
    if not pool:
        raise RuleViolation(section, f"{player.name} has nothing to plant: the {where} is empty")
    bean = c.bean
    if bean is None:
        kinds = sorted(set(pool))
        if len(kinds) != 1:
            raise MalformedCommand(f"name the bean to plant from the {where}: {beans_text(pool)}")
        bean = kinds[0]
    if bean not in pool:
        raise RuleViolation(
            section,
            f"{player.name} has no {label(bean)} to plant: the {where} holds {beans_text(pool)}",
        )
    _plant_into(d, c.seat, c.field, bean, source)


# --- harvesting and the third field -------------------------------------------------------------


def _harvest(d: _Decision, seat: int, index: int, implied_by: str | None = None) -> None:
    s = d.state
    player = s.players[seat]
    field = player.fields[index]
    if field.bean is None:
        raise RuleViolation("8.2", f"{player.name} cannot harvest {field_name(index)}: it is empty")
    blocker = protection_blocker(s, seat, index)
    if blocker is not None:
        doing = f"plant {label(implied_by)} over" if implied_by else "harvest"
        raise RuleViolation(
            "8.3", f"{player.name} cannot {doing} {field_text(player, index)} {blocker}"
        )
    coins = coins_for(s.ruleset.meters[field.bean], field.count)
    d.emit(ev.FieldHarvested(seat, index, field.bean, field.count, coins, False))


def _harvest_command(d: _Decision, c: cmd.Harvest) -> None:
    s = d.state
    if s.phase is Phase.DEAL:
        raise RuleViolation("3.4", "the cards have not been dealt yet")
    if s.ruleset.harvest_timing == "own-turn":
        _require_active(s, c.seat, "11.1", "harvest (in the bean duel only on one's own turn)")
    _harvest(d, c.seat, _field_index(s, c.seat, c.field))


def _buy_field(d: _Decision, c: cmd.BuyField) -> None:
    s = d.state
    blocker = buy_field_blocker(s, c.seat)
    if blocker is not None:
        raise RuleViolation(*blocker)
    rules = s.ruleset
    paid = list(reversed(s.players[c.seat].coins[-rules.third_field_cost :]))
    d.emit(ev.ThirdFieldBought(c.seat, paid, rules.third_field_coins_to))


# --- the draw pile -------------------------------------------------------------------------------


def _reshuffle(d: _Decision) -> None:
    s = d.state
    if s.mode == TABLETOP:
        d.emit(ev.DiscardsReshuffled(None, len(s.discard_pile)))
        return
    assert s.seed is not None
    order = shuffled(s.discard_pile, s.seed, s.reshuffles + 1)
    d.emit(ev.DiscardsReshuffled(order, len(order)))


def _exhaust(d: _Decision) -> None:
    """The draw pile ran out: count it (RULES §10.2) and, with the immediate reshuffle, judge an
    empty discard pile (§14 E6) and reshuffle now unless this pass was the last. With on-next-draw
    the reshuffle and that judgement wait for the next card needed (`_ensure_card`)."""
    s = d.state
    rules = s.ruleset
    count = s.exhaustions + 1
    last_pass = count >= rules.end_on_exhaustion
    immediate = rules.reshuffle == "immediate"
    empty_end = immediate and not last_pass and _empty_reshuffle_ends(s)
    final = (last_pass and rules.end_trigger == "last-card") or empty_end
    d.emit(ev.DeckExhausted(count, final))
    if immediate and not last_pass and not final:
        _reshuffle(d)


def _empty_reshuffle_ends(s: GameState) -> bool:
    """Whether a reshuffle now ends the game: the discard pile is empty and the ruleset says
    end-game rather than cascade (RULES §14 E6)."""
    return not s.discard_pile and s.ruleset.empty_reshuffle == "end-game"


def _ensure_card(d: _Decision) -> bool:
    """Make the draw pile hold a card if the rules allow; False when no card can be drawn.

    The deferred reshuffle (on-next-draw, RULES §10.9) is made here, from the discard pile as it
    is now. If that pile is empty under end-game (§14 E6), no card can be had: DrawFailed records
    it and triggers the end as a final exhaustion does, so the game finishes as §10.4 (a reveal:
    phases 2 and 3 are played out), §10.5 (a phase-4 draw: it ends at once) and §11.4 say. Under
    cascade the empty new pile counts as the next exhaustion, possibly the final one.
    """
    while not d.state.draw_pile:
        s = d.state
        if s.end_triggered:
            return False
        last_pass = s.exhaustions >= s.ruleset.end_on_exhaustion
        if last_pass:
            return False  # failed-draw house rule: the game ends at this draw
        if s.reshuffles < s.exhaustions:  # reshuffle timing on-next-draw
            if _empty_reshuffle_ends(s):
                d.emit(ev.DrawFailed(s.active, "reveal" if s.phase is Phase.PLANT else "draw"))
                return False
            _reshuffle(d)
        else:
            _exhaust(d)  # an empty pile after an empty reshuffle counts again (RULES §14 E6)
    return True


def _draw_cards(
    d: _Decision,
    seat: int,
    what: str,
    owed: int,
    named: tuple[str, ...] | None,
    emit_batch: Callable[[list[str]], None],
) -> None:
    """Take up to `owed` cards off the draw pile, handling exhaustion as RULES §10 says.

    Cards taken between two exhaustions are passed to `emit_batch` together. Tabletop games name
    the cards (`named`); digital games take them from the top of the shuffled pile.
    """
    s = d.state
    counted, ended = _draw_sections(s, what)
    unseen = s.hands_unknown and what == "draw"  # cards drawn into a hand go there unseen
    if unseen:
        if named is not None and any(bean != UNSEEN for bean in named):
            raise MalformedCommand(
                "in a game with unknown hands the cards drawn go into the hand unseen: name none "
                "(the seat may note its own hand, note-hand)"
            )
    elif s.mode == TABLETOP and named is None:
        raise MalformedCommand(f"tabletop games name the cards: {what} needs 'cards'")
    elif named is not None and UNSEEN in named:
        raise MalformedCommand(f"the cards of a {what} are seen at the table: name every one")
    if s.mode == DIGITAL and named is not None:
        raise MalformedCommand("digital games draw from the shuffled deck; do not name 'cards'")

    def pick(pile: tuple[str, ...], batch: list[str], taken: int) -> str:
        if unseen and named is None:
            return UNSEEN
        if named is None:
            return pile[len(batch)]
        if taken >= len(named):
            raise RuleViolation(
                counted,
                f"{s.name(seat)} must {what} {owed} cards; {len(named)} "
                f"{'was' if len(named) == 1 else 'were'} named",
            )
        bean = named[taken]
        if unseen:
            return bean
        short = pile_shortfall(d.state, bean, Counter(batch))
        if short is not None:
            raise RuleViolation("4.4", f"{s.name(seat)} cannot {what} a {label(bean)}: {short}")
        return bean

    taken = _take(d, owed, pick, emit_batch)
    if named is not None and len(named) != taken and taken == owed:
        raise RuleViolation(counted, f"{s.name(seat)} must {what} {owed} cards, not {len(named)}")
    if named is not None and len(named) != taken:
        raise RuleViolation(
            ended,
            f"{len(named)} cards were named but only {taken} could be drawn before the game ended",
        )
    if taken < owed and not d.state.end_triggered:
        d.emit(ev.DrawFailed(seat, what))  # failed-draw house rule (RULES §12.1 H3)
        _end_game(d)


def _draw_sections(s: GameState, what: str) -> tuple[str, str]:
    """The RULES sections that say how many cards a reveal or draw takes, and how the game
    ends in the middle of one."""
    if s.ruleset.duel:
        return "11.2", "11.4"
    return ("5.2.1", "10.4") if what == "reveal" else ("5.4.1", "10.5")


def _take(
    d: _Decision,
    owed: int,
    pick: Callable[[tuple[str, ...], list[str], int], str],
    emit_batch: Callable[[list[str]], None],
) -> int:
    """The draw itself: up to `owed` cards, each chosen by `pick(pile, batch, taken)`, passed to
    `emit_batch` between exhaustions; how many were taken (fewer if the game ends on the way)."""
    taken = 0
    batch: list[str] = []
    while taken < owed:
        if not _ensure_card(d):
            break
        pile = d.state.draw_pile
        batch.append(pick(pile, batch, taken))
        taken += 1
        if len(batch) == len(pile):
            emit_batch(batch)
            batch = []
            _exhaust(d)
            if d.state.end_triggered:
                break
    if batch:
        emit_batch(batch)
    return taken


def drawable(state: GameState, owed: int) -> int:
    """How many of `owed` cards the active seat's reveal or draw takes now: `owed`, unless the
    game ends on the way (RULES §10). The draw's own steps, on a scratch copy of the table, taking
    whatever the pile holds: only how many cards there are decides when it runs out."""
    return len(draw_through(state, owed, lambda left: left[0]))


def draw_through(state: GameState, owed: int, choose: Callable[[list[str]], str]) -> list[str]:
    """The cards the active seat's reveal or draw of `owed` cards could take now, each chosen by
    `choose(the cards the pile may still hold)`: the draw's own steps on a scratch copy of the
    table, so that a reshuffle on the way draws from the discards and the game's end stops it
    (RULES §4.4, §10). What a tabletop host may name, card by card."""
    d = _Decision(state)
    taken: list[str] = []

    def emit(batch: list[str]) -> None:
        taken.extend(batch)
        for bean in batch:
            d.emit(ev.CardDrawn(state.active, bean))

    def pick(pile: tuple[str, ...], batch: list[str], _: int) -> str:
        return choose(list((Counter(d.state.unseen_beans()) - Counter(batch)).elements()))

    _take(d, owed, pick, emit)
    return taken


def _reveal(d: _Decision, c: cmd.Reveal) -> None:
    s = d.state
    player = s.players[c.seat]
    section = _turn_section(s, "5.2")
    if s.phase is not Phase.PLANT:
        when = "in step 3, after step 2" if s.ruleset.duel else "once, right after phase 1"
        raise RuleViolation(section, f"cards are revealed {when}; the turn is at {s.phase_text}")
    _require_active(s, c.seat, section, "reveal cards")
    if s.planted == 0 and player.hand:
        front = player.hand[0]
        seen = "" if pile_of(front) is not None else f" ({label(front)})"
        raise RuleViolation("5.1.2", f"{player.name} must first plant the front card{seen}")
    revealed_any = False

    def reveal(cards: list[str]) -> None:
        nonlocal revealed_any
        revealed_any = True
        d.emit(ev.CardsRevealed(c.seat, list(cards)))

    _draw_cards(d, c.seat, "reveal", s.ruleset.reveal, c.cards, reveal)
    if d.state.is_over:
        return
    if not revealed_any:
        d.emit(ev.CardsRevealed(c.seat, []))
    if s.ruleset.duel:
        _match_discards(d, c.seat)


def _not_time_to_draw(s: GameState) -> RuleViolation:
    active = s.name(s.active)
    if s.end_triggered:
        if s.ruleset.duel:
            return RuleViolation(
                "11.4", f"the draw pile ran out in step 3: {active} finishes it, then the game ends"
            )
        return RuleViolation(
            "10.4",
            f"the end came during the reveal: {active}'s turn ends with phase 3 and phase 4 is "
            "skipped; no more cards are drawn",
        )
    if s.phase is Phase.PLANT_TRADED:
        waiting = ", ".join(
            f"{player.name} ({', '.join(label(bean) for bean in player.trade_area)})"
            for player in s.players
            if player.trade_area
        )
        return RuleViolation(
            "5.3.4", f"{active} draws once every trade area is empty; still to plant: {waiting}"
        )
    if s.phase is Phase.PLANT_DRAWN:
        return RuleViolation(
            "11.2",
            f"{active} draws after step 3: plant the drawn cards wanted, then offer the rest "
            "(offer-rest)",
        )
    section = "11.2" if s.ruleset.duel else "5.4"
    return RuleViolation(section, f"it is not time to draw: {active}'s turn is at {s.phase_text}")


def _draw(d: _Decision, c: cmd.Draw) -> None:
    s = d.state
    if s.phase is not Phase.DRAW:
        raise _not_time_to_draw(s)
    _require_active(s, c.seat, _turn_section(s, "5.4"), "draw")

    def draw(cards: list[str]) -> None:
        for bean in cards:
            d.emit(ev.CardDrawn(c.seat, bean))

    _draw_cards(d, c.seat, "draw", s.ruleset.draw, c.cards, draw)
    after = d.state
    if not after.end_triggered and not after.is_over:
        d.emit(ev.TurnEnded(c.seat, (c.seat + 1) % len(after.players), after.turn))


# --- trading -------------------------------------------------------------------------------------


def _trade_phase(s: GameState, seat: int, doing: str) -> None:
    if not s.ruleset.trading:
        raise RuleViolation("11.1", "there is no trading or donating in the bean duel")
    if s.phase is not Phase.TRADE:
        raise RuleViolation(
            "5.2",
            f"{s.name(seat)} cannot {doing}: trading happens in phase 2, after the reveal; "
            f"the turn is at {s.phase_text}",
        )


def _open_offer(s: GameState, offer_id: int) -> Offer:
    for offer in s.offers:
        if offer.id == offer_id:
            return offer
    if offer_id >= s.next_offer:
        last = s.next_offer - 1
        made = {0: "none was made", 1: "only offer #1 was made"}.get(
            last, f"offers #1–#{last} were made"
        )
        raise RuleViolation("6.6", f"there is no offer #{offer_id}: {made}")
    raise RuleViolation(
        "6.6", f"offer #{offer_id} is not open (it was accepted, declined, withdrawn or lapsed)"
    )


def _given_cards(
    s: GameState,
    seat: int,
    hand: Sequence[int],
    revealed: Sequence[str],
    trade_area: Sequence[str],
    hand_beans: Sequence[str] | None,
    already: Counter[tuple[int, str]] | None = None,
) -> list[str]:
    """Check what `seat` gives in a trade; the beans, hand cards first (RULES §6.2–6.4). `already`:
    the unseen cards the other side of the trade names, as for `_hand_positions`."""
    player = s.players[seat]
    cards = _hand_positions(s, seat, hand, hand_beans, already)
    if revealed:
        if seat != s.active:
            raise RuleViolation(
                "6.3", f"{player.name} cannot give face-up cards: they belong to {s.name(s.active)}"
            )
        lacking = missing(s.revealed, revealed)
        if lacking:
            raise RuleViolation(
                "6.2",
                f"there is no face-up {beans_text(lacking)} (face up: {beans_text(s.revealed)})",
            )
    if trade_area:
        if not s.ruleset.allow_retrade:
            raise RuleViolation(
                "6.4", f"{player.name} cannot trade cards received in a trade; they must be planted"
            )
        lacking = missing(player.trade_area, trade_area)
        if lacking:
            raise RuleViolation("6.4", f"{player.name}'s trade area holds no {beans_text(lacking)}")
    return [*cards, *revealed, *trade_area]


def _offer(d: _Decision, c: cmd.Offer) -> None:
    s = d.state
    _trade_phase(s, c.seat, "offer a trade")
    if not 0 <= c.to < len(s.players):
        raise MalformedCommand(
            f"seat {c.to} does not exist; this game has seats 0–{len(s.players) - 1}"
        )
    if c.to == c.seat:
        raise RuleViolation("6.1", f"{s.name(c.seat)} cannot trade with themselves")
    if s.active not in (c.seat, c.to):
        raise RuleViolation(
            "6.1",
            f"{s.name(c.seat)} and {s.name(c.to)} cannot trade: every trade involves the active "
            f"player, {s.name(s.active)}",
        )
    cards = _given_cards(s, c.seat, c.hand, c.revealed, c.trade_area, c.hand_beans)
    _in_play(s, c.wants)
    if not cards and not c.wants:
        raise RuleViolation("6.5", "an offer must give or ask for at least one card")
    d.emit(
        ev.TradeOffered(
            offer=s.next_offer,
            proposer=c.seat,
            to=c.to,
            hand=sorted(c.hand),
            revealed=list(c.revealed),
            trade_area=list(c.trade_area),
            cards=cards,
            wants=list(c.wants),
        )
    )


def _still_given(
    s: GameState,
    offer: Offer,
    gone: dict[int, list[int]],
    revealed: list[str],
    areas: dict[int, tuple[str, ...]],
) -> bool:
    """Whether `offer`'s cards are still there after a trade moved others (RULES §14 E12)."""
    if offer.proposer in gone and set(offer.hand) & set(gone[offer.proposer]):
        return False
    if offer.revealed and missing(revealed, offer.revealed):
        return False
    area = areas.get(offer.proposer, s.players[offer.proposer].trade_area)
    return not missing(area, offer.trade_area)


def _accept(d: _Decision, c: cmd.Accept) -> None:
    s = d.state
    _trade_phase(s, c.seat, "accept a trade")
    offer = _open_offer(s, c.offer)
    if c.seat != offer.to:
        raise RuleViolation(
            "6.6",
            f"offer #{offer.id} was made to {s.name(offer.to)}; {s.name(c.seat)} cannot accept it",
        )
    hand_beans = c.hand_beans
    if hand_beans is None:
        hand_beans = _inferred_hand_beans(s, c, offer)
    named = _still_possible(s, offer)
    given = _given_cards(s, c.seat, c.hand, c.revealed, c.trade_area, hand_beans, named)
    if Counter(given) != Counter(offer.wants):
        raise RuleViolation(
            "6.6",
            f"offer #{offer.id} asks {s.name(c.seat)} for {beans_text(offer.wants)}; "
            f"the cards chosen are {beans_text(given)}",
        )
    revealed_left = list(s.revealed)
    for bean in (*offer.revealed, *c.revealed):
        revealed_left.remove(bean)
    gone = {offer.proposer: list(offer.hand), c.seat: list(c.hand)}
    areas = {
        offer.proposer: remove_cards(s.players[offer.proposer].trade_area, offer.trade_area)
        + tuple(given),
        c.seat: remove_cards(s.players[c.seat].trade_area, c.trade_area) + offer.gives,
    }
    lapsed = [
        other.id
        for other in s.offers
        if other.id != offer.id and not _still_given(s, other, gone, revealed_left, areas)
    ]
    d.emit(
        ev.TradeAccepted(
            offer=offer.id,
            proposer=offer.proposer,
            acceptor=c.seat,
            proposer_hand=list(offer.hand),
            proposer_revealed=list(offer.revealed),
            proposer_trade_area=list(offer.trade_area),
            acceptor_hand=sorted(c.hand),
            acceptor_revealed=list(c.revealed),
            acceptor_trade_area=list(c.trade_area),
            to_acceptor=list(offer.gives),
            to_proposer=given,
            lapsed=lapsed,
        )
    )


def _inferred_hand_beans(s: GameState, c: cmd.Accept, offer: Offer) -> tuple[str, ...] | None:
    """The beans of an acceptance's unseen hand cards, when the offer's wants leave no choice
    that matters: the known cards give their own beans, and the unseen ones the rest of the
    wanted beans, all of one bean or all from one draw pile (then any order is the same game).
    None when every card is known, or when the acceptance must name them (hand_beans)."""
    hand = s.players[c.seat].hand
    if any(not 0 <= p < len(hand) for p in c.hand):
        return None  # _hand_positions names the position that does not exist
    piles = {pile_of(hand[p]) for p in c.hand} - {None}
    if not piles:
        return None
    rest = Counter(offer.wants) - Counter(c.revealed) - Counter(c.trade_area)
    unseen = [p for p in c.hand if pile_of(hand[p]) is not None]
    for position in c.hand:
        if position not in unseen:
            rest[hand[position]] -= 1
    beans = [bean for bean in s.ruleset.beans for _ in range(max(rest[bean], 0))]
    if len(beans) != len(unseen) or (len(set(beans)) > 1 and len(piles) > 1):
        return None  # _hand_positions asks for hand_beans
    by_position = dict(zip(unseen, beans, strict=True))
    return tuple(by_position.get(p, hand[p]) for p in c.hand)


def _still_possible(s: GameState, offer: Offer) -> Counter[tuple[int, str]]:
    """The beans an offer named for its unseen hand cards must still be possible when it is
    accepted (RULES §4.4). An offer names its cards for good (`evolve`), so this refuses only an
    offer stored before it did, whose cards other cards seen since have used up. The (pile, bean) pairs
    it names, which the acceptance's own unseen cards cannot be as well."""
    named: Counter[tuple[int, str]] = Counter()
    if not offer.hand or not s.hands_unknown:
        return named
    hand = s.players[offer.proposer].hand
    for position, bean in zip(offer.hand, offer.gives, strict=False):
        problem = hand_card_problem(s, offer.proposer, position, bean, named)
        if problem is not None:
            raise RuleViolation(
                "4.4", f"offer #{offer.id} can no longer be accepted: {problem} since it was made"
            )
        pile = pile_of(hand[position])
        if pile is not None:
            named[(pile, bean)] += 1
    return named


def _decline(d: _Decision, c: cmd.Decline) -> None:
    s = d.state
    _trade_phase(s, c.seat, "decline a trade")
    offer = _open_offer(s, c.offer)
    if c.seat != offer.to:
        raise RuleViolation(
            "6.6",
            f"offer #{offer.id} was made to {s.name(offer.to)}; {s.name(c.seat)} cannot decline it",
        )
    d.emit(ev.TradeDeclined(offer.id, c.seat))


def _withdraw(d: _Decision, c: cmd.Withdraw) -> None:
    s = d.state
    _trade_phase(s, c.seat, "withdraw an offer")
    offer = _open_offer(s, c.offer)
    if c.seat != offer.proposer:
        raise RuleViolation(
            "6.6",
            f"offer #{offer.id} is {s.name(offer.proposer)}'s; {s.name(c.seat)} cannot withdraw it",
        )
    d.emit(ev.TradeWithdrawn(offer.id, c.seat))


def _end_trading(d: _Decision, c: cmd.EndTrading) -> None:
    s = d.state
    _trade_phase(s, c.seat, "end trading")
    _require_active(s, c.seat, "5.2", "end trading")
    d.emit(ev.TradingEnded(c.seat, list(s.revealed), [offer.id for offer in s.offers]))


# --- the deal (tabletop) and the duel's own steps -----------------------------------------------


def _deal(d: _Decision, c: cmd.Deal) -> None:
    s = d.state
    if s.phase is not Phase.DEAL:
        raise RuleViolation("3.4", "the cards have already been dealt")
    rules = s.ruleset
    if len(c.hands) != rules.players:
        raise MalformedCommand(
            f"deal needs {rules.players} hands, one per seat, not {len(c.hands)}"
        )
    for seat, hand in enumerate(c.hands):
        size = rules.deal[(seat - s.start_seat) % rules.players]
        if len(hand) != size:
            raise RuleViolation("3.4", f"{s.name(seat)} is dealt {size} cards, not {len(hand)}")
    # The cards in the order a dealer hands them out, so that the card named as one too many is
    # the first one dealt that could not be there.
    taken: Counter[str] = Counter()
    given = [0] * rules.players
    for seat in deal_order(rules, s.start_seat):
        bean = c.hands[seat][given[seat]]
        given[seat] += 1
        short = pile_shortfall(s, bean, taken)
        if short is not None:
            raise RuleViolation("4.4", f"{s.name(seat)} cannot be dealt a {label(bean)}: {short}")
        taken[bean] += 1
    d.emit(ev.CardsDealt([list(hand) for hand in c.hands]))


def _duel_step(s: GameState, seat: int, phase: Phase, doing: str) -> None:
    if not s.ruleset.duel:
        raise RuleViolation("11.2", f"{s.name(seat)} cannot {doing}: that is a bean-duel step")
    if s.phase is not phase:
        raise RuleViolation(
            "11.2", f"{s.name(seat)} cannot {doing} now: the turn is at {s.phase_text}"
        )
    _require_active(s, seat, "11.2", doing)


def _discard_offered(d: _Decision, c: cmd.DiscardOffered) -> None:
    s = d.state
    _duel_step(s, c.seat, Phase.RESOLVE_OFFER, "discard an offered card")
    if c.bean not in s.duel_offer:
        raise RuleViolation(
            "11.2", f"the offer holds no {label(c.bean)} (offered: {beans_text(s.duel_offer)})"
        )
    d.emit(ev.OfferedCardDiscarded(c.seat, c.bean))


def _discard_from_hand(d: _Decision, c: cmd.DiscardFromHand) -> None:
    s = d.state
    _duel_step(s, c.seat, Phase.PLANT, "discard a hand card")
    if s.hand_discarded:
        raise RuleViolation("11.2", f"{s.name(c.seat)} may discard only one hand card per turn")
    if s.planted == 0 and s.players[c.seat].hand:
        raise RuleViolation("11.2", f"{s.name(c.seat)} discards only after planting the front card")
    named = None if c.bean is None else (c.bean,)
    (bean,) = _hand_positions(s, c.seat, [c.position], named)
    d.emit(ev.HandCardDiscarded(c.seat, c.position, bean))


def _match_discards(d: _Decision, seat: int) -> None:
    """Duel step 3: top discards matching a drawn card join the drawn cards (RULES §11.2, E18)."""
    kinds = set(d.state.revealed)
    pile = d.state.discard_pile
    taken: list[str] = []
    while len(taken) < len(pile) and pile[-1 - len(taken)] in kinds:
        taken.append(pile[-1 - len(taken)])
    if taken:
        d.emit(ev.DiscardsMatched(seat, taken))


def _offer_rest(d: _Decision, c: cmd.OfferRest) -> None:
    s = d.state
    _duel_step(s, c.seat, Phase.PLANT_DRAWN, "leave the drawn cards as an offer")
    d.emit(ev.CardsOffered(c.seat, list(s.revealed)))


# --- what the table shows of the hands (unknown hands) ------------------------------------------


def _whole_hand(s: GameState, seat: int, cards: Sequence[str], doing: str) -> None:
    """`cards` names a seat's whole hand, front first (UNSEEN where it names nothing); each named
    bean must be possible for its card (RULES §4.4)."""
    if not s.hands_unknown:
        raise MalformedCommand(f"only a game with unknown hands has cards to {doing}")
    hand = s.players[seat].hand
    if len(cards) != len(hand):
        raise MalformedCommand(
            f"{s.name(seat)} holds {len(hand)} card{'s' if len(hand) != 1 else ''}; "
            f"name {'it' if len(hand) == 1 else 'them'} front first, not {len(cards)}"
        )
    _in_play(s, [bean for bean in cards if bean != UNSEEN])
    named: Counter[tuple[int, str]] = Counter()
    for position, bean in enumerate(cards):
        if bean == UNSEEN:
            continue
        problem = hand_card_problem(s, seat, position, bean, named)
        if problem is not None:
            raise RuleViolation("4.4", problem)
        pile = pile_of(hand[position])
        if pile is not None:
            named[(pile, bean)] += 1


def _note_hand(d: _Decision, c: cmd.NoteHand) -> None:
    _whole_hand(d.state, c.seat, c.cards, "note")
    d.emit(ev.HandNoted(c.seat, list(c.cards)))


def _show_hand(d: _Decision, c: cmd.ShowHand) -> None:
    s = d.state
    if not s.is_over:
        raise RuleViolation("10.6", "hands are shown at the end of the game, not before")
    if UNSEEN in c.cards:
        raise MalformedCommand("a hand shown at the end shows every card: name each bean")
    if all(pile_of(card) is None for card in s.players[c.seat].hand):
        raise MalformedCommand(f"every card of {s.name(c.seat)}'s hand is known already")
    _whole_hand(s, c.seat, c.cards, "show")
    d.emit(ev.HandShown(c.seat, list(c.cards)))


# --- the end -------------------------------------------------------------------------------------


def _end_game(d: _Decision) -> None:
    """Final harvest of every field, ignoring protection and timing, then the standing (§10.6–7)."""
    s = d.state
    for seat, player in enumerate(s.players):
        for index, field in enumerate(player.fields):
            if field.bean is not None:
                coins = coins_for(s.ruleset.meters[field.bean], field.count)
                d.emit(ev.FieldHarvested(seat, index, field.bean, field.count, coins, True))
    s = d.state
    scores = [len(player.coins) for player in s.players]
    hand_sizes = [len(player.hand) for player in s.players]
    winners, decided_by = standing(s, scores, hand_sizes)
    d.emit(ev.GameEnded(scores, hand_sizes, winners, decided_by))


def standing(
    s: GameState, scores: list[int], hand_sizes: list[int]
) -> tuple[list[int], str | None]:
    """The winners and the tie-break that decided (RULES §10.7), criteria in ruleset order."""
    best = max(scores)
    tied = [seat for seat, score in enumerate(scores) if score == best]
    if len(tied) == 1:
        return tied, None
    measures: dict[str, Callable[[int], Any]] = {
        MOST_HAND_CARDS: lambda seat: hand_sizes[seat],
        SEAT_DISTANCE: lambda seat: (seat - s.start_seat) % len(scores),
    }
    for criterion in s.ruleset.tie_break:
        measure = measures.get(criterion)
        if measure is None:  # "shared"
            return tied, criterion
        top = max(measure(seat) for seat in tied)
        tied = [seat for seat in tied if measure(seat) == top]
        if len(tied) == 1:
            return tied, criterion
    return tied, "shared"


_HANDLERS: dict[type[cmd.Command], Callable[[_Decision, Any], None]] = {
    cmd.Deal: _deal,
    cmd.Plant: _plant,
    cmd.Reveal: _reveal,
    cmd.Offer: _offer,
    cmd.Accept: _accept,
    cmd.Decline: _decline,
    cmd.Withdraw: _withdraw,
    cmd.EndTrading: _end_trading,
    cmd.Harvest: _harvest_command,
    cmd.BuyField: _buy_field,
    cmd.Draw: _draw,
    cmd.DiscardOffered: _discard_offered,
    cmd.DiscardFromHand: _discard_from_hand,
    cmd.OfferRest: _offer_rest,
    cmd.NoteHand: _note_hand,
    cmd.ShowHand: _show_hand,
}
