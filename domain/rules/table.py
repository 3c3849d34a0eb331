"""Questions about the table that both `decide` and `legal_commands` ask, answered once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .beans import coins_for, coins_text, label
from .rulesets import OWN_TURN
from .state import Field, GameState, Phase, Player, pile_of


def field_name(index: int) -> str:
    """Fields as people count them: index 0 is "field 1"."""
    return f"field {index + 1}"


def field_text(player: Player, index: int) -> str:
    """E.g. "field 1 (1 Chili)" or "field 2 (empty)"."""
    return f"{field_name(index)} ({player.fields[index].text()})"


def protection_blocker(state: GameState, seat: int, index: int) -> str | None:
    """Why bean protection (RULES §8.3) forbids harvesting this field now, or None if it allows.

    A field of two or more cards may always be harvested. A single card may not be harvested while
    another field holds two or more (`amigo`, the default); under `rg-literal` only when every field
    holds exactly one card.
    """
    fields = state.players[seat].fields
    if fields[index].count != 1 or not singles_protected(state.ruleset.bean_protection, fields):
        return None
    for other, field in enumerate(fields):
        if other != index and field.count >= 2:
            return f"while {field_name(other)} holds {field.text()}"
    for other, field in enumerate(fields):
        if other != index and field.count == 0:
            return (
                f"while {field_name(other)} is empty (rg-literal wording: a single card only "
                "when every field holds exactly one)"
            )
    raise AssertionError("a protected single card has a field that protects it")


def singles_protected(wording: str, fields: tuple[Field, ...]) -> bool:
    """Whether bean protection (RULES §8.3), in this wording, forbids harvesting a field of a
    single card among these fields: while another holds two or more, or under `rg-literal`,
    also while another is empty. (The field of the single card is neither, so "another" is any.)"""
    if wording == "none":
        return False
    counts = [field.count for field in fields]
    return max(counts) >= 2 or (wording == "rg-literal" and 0 in counts)


def harvest_coins(state: GameState, seat: int, index: int) -> int:
    """Coins that harvesting this field would earn now (RULES §1.2)."""
    field = state.players[seat].fields[index]
    if field.bean is None:
        return 0
    return coins_for(state.ruleset.meters[field.bean], field.count)


def may_harvest_now(state: GameState, seat: int) -> bool:
    """Harvest timing (RULES §8.1): any time, except only on one's own turn in the duel."""
    if state.phase in (Phase.DEAL, Phase.ENDED):
        return False
    return state.ruleset.harvest_timing != OWN_TURN or seat == state.active


def harvestable_fields(state: GameState, seat: int) -> list[int]:
    """Fields this seat may harvest right now."""
    if not may_harvest_now(state, seat):
        return []
    fields = state.players[seat].fields
    singles = not singles_protected(state.ruleset.bean_protection, fields)
    return [i for i, field in enumerate(fields) if field.count >= 2 or (field.count and singles)]


def plant_targets(state: GameState, seat: int, bean: str) -> list[int]:
    """Fields a `bean` may be planted into without harvesting first (RULES §7.1)."""
    return [
        i
        for i, field in enumerate(state.players[seat].fields)
        if field.bean is None or field.bean == bean
    ]


def buy_field_blocker(state: GameState, seat: int) -> tuple[str, str] | None:
    """(section, reason) why this seat may not buy a third field now, or None (RULES §9)."""
    rules = state.ruleset
    player = state.players[seat]
    name = player.name
    if state.phase in (Phase.DEAL, Phase.ENDED):
        return "10", f"{name} cannot buy a field: the game is not under way"
    if not rules.third_field:
        if rules.fields_at_start >= 3:
            return "9.4", f"{name} started with three fields; no further field can be bought"
        return "9.4", f"the {rules.preset} ruleset has no third bean field for sale"
    if player.bought_field or len(player.fields) >= 3:
        return "9.1", f"{name} already has a third field; it can be bought only once"
    if rules.buy_timing == OWN_TURN and seat != state.active:
        return "11.5", f"{name} may buy the third field only on their own turn"
    if len(player.coins) < rules.third_field_cost:
        return (
            "9.2",
            f"{name} has {coins_text(len(player.coins))}; the third field costs "
            f"{rules.third_field_cost}",
        )
    return None


def missing(pool: Iterable[str], wanted: Iterable[str]) -> list[str]:
    """The beans of `wanted` that `pool` does not hold (as a multiset)."""
    short = Counter(wanted) - Counter(pool)
    return list(short.elements())


def not_in_play(state: GameState, bean: str) -> str | None:
    """Why `bean` is no card of this game (RULES §2), or None."""
    rules = state.ruleset
    if bean in rules.counts:
        return None
    return f"{label(bean)} is not in play ({rules.preset}, {rules.players} players)"


def pile_shortfall(state: GameState, bean: str, already: Counter[str]) -> str | None:
    """Why `bean` cannot be the next card off a tabletop draw pile, or None (RULES §4.4).
    `already`: the beans named off the same pile earlier in the same command."""
    problem = not_in_play(state, bean)
    if problem is not None:
        return problem
    if state.unseen_beans().count(bean) - already[bean] > 0:
        return None
    if state.hands_unknown:
        return f"no {label(bean)} can come off the draw pile: every {label(bean)} it could hold has been seen"
    return (
        f"no {label(bean)} can be in the draw pile: all {state.ruleset.counts[bean]} "
        f"{label(bean)} cards are accounted for elsewhere"
    )


def hand_card_problem(
    state: GameState, seat: int, position: int, bean: str, already: Counter[tuple[int, str]]
) -> str | None:
    """Why the card at `position` of `seat`'s hand cannot be `bean` (RULES §4.4), or None: a known
    card is the bean it is; a card nobody has seen may be any bean of its draw pile not seen yet.
    `already`: (pile, bean) pairs named for other cards of the same command. (A bean not in play
    at all is `not_in_play`'s, RULES §2.)"""
    card = state.players[seat].hand[position]
    where = f"{state.name(seat)}'s card at hand position {position + 1}"
    pile = pile_of(card)
    if pile is None:
        return None if card == bean else f"{where} is {label(card)}, not {label(bean)}"
    if state.pools[pile].count(bean) - already[(pile, bean)] > 0:
        return None
    return f"{where} cannot be {label(bean)}: every {label(bean)} it could be has been seen"


def possible_beans(state: GameState, card: str) -> tuple[str, ...]:
    """The beans a hand card may be: itself when known, else the distinct beans its draw pile
    has not shown yet (in bean-table order)."""
    pile = pile_of(card)
    if pile is None:
        return (card,)
    return tuple(dict.fromkeys(state.pools[pile]))
