"""The table at one moment: an immutable value that `evolve` turns into the next one."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from .beans import label
from .rulesets import Ruleset
from .values import replaceable

DIGITAL = "digital"
TABLETOP = "tabletop"
MODES = (DIGITAL, TABLETOP)

UNKNOWN = "?"
"""A card whose face a viewer cannot see, in views folded from redacted events. In a game with
unknown hands it is also the card nobody has seen yet (UNSEEN), in facts and in the draw pile."""
UNSEEN = UNKNOWN

KNOWN_HANDS = "known"
UNKNOWN_HANDS = "unknown"
HANDS = (KNOWN_HANDS, UNKNOWN_HANDS)
"""Tabletop games: whether the host enters every card dealt and drawn into a hand, or the hands
are unknown until the table shows their cards."""


def unseen_card(pile: int, note: str | None = None) -> str:
    """A hand card nobody has seen, from the `pile`-th draw pile of the game (0: the deck; n: the
    pile the n-th reshuffle made), with the bean its holder noted for its own view, if any:
    "?0", "?1:blue"."""
    return f"?{pile}" if note is None else f"?{pile}:{note}"


def is_hidden(card: str) -> bool:
    """Whether a card in a hand or pile is one whose face is not known here (UNKNOWN or unseen)."""
    return card[0] == "?"


def pile_of(card: str) -> int | None:
    """The draw pile an unseen hand card came from; None for a known card or a plain UNKNOWN."""
    if card[0] != "?" or len(card) == 1:
        return None
    return int(card[1:].partition(":")[0])


def note_of(card: str) -> str | None:
    """The bean a seat noted for an unseen card of its own hand (only ever in its own view)."""
    return card.partition(":")[2] or None if card[0] == "?" else None


class Phase(StrEnum):
    """Where the active player's turn stands (RULES §5; the duel's steps, RULES §11.2)."""

    DEAL = "deal"
    """Tabletop only: waiting for the dealt hands to be entered."""
    RESOLVE_OFFER = "resolve-offer"
    """Duel step 1: plant or discard the cards the opponent left as an offer."""
    PLANT = "plant"
    """Phase 1 (duel step 2): plant the front card, optionally the next one."""
    TRADE = "trade"
    """Phase 2 after the reveal: trading and donating."""
    PLANT_TRADED = "plant-traded"
    """Phase 3: everyone plants the cards in their trade areas."""
    PLANT_DRAWN = "plant-drawn"
    """Duel step 3 after the draw: plant any of the drawn cards, offer the rest."""
    DRAW = "draw"
    """Phase 4 (duel step 4): the active player draws cards to the back of the hand."""
    ENDED = "ended"


PHASE_TEXT = {
    Phase.DEAL: "the deal",
    Phase.RESOLVE_OFFER: "step 1, the offered cards",
    Phase.PLANT: "phase 1, planting from the hand",
    Phase.TRADE: "phase 2, trading",
    Phase.PLANT_TRADED: "phase 3, planting the traded cards",
    Phase.PLANT_DRAWN: "step 3, planting the drawn cards",
    Phase.DRAW: "phase 4, drawing",
    Phase.ENDED: "the end of the game",
}
"""Where a turn stands, in the rulebook's words (RULES §5, and §11.2 for the duel's steps)."""
DUEL_PHASE_TEXT = {
    **PHASE_TEXT,
    Phase.PLANT: "step 2, planting and discarding from the hand",
    Phase.DRAW: "step 4, drawing",
}


class Field(NamedTuple):
    """A bean field: one bean type and how many cards of it (RULES §4.3)."""

    bean: str | None
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, on purpose

    def text(self) -> str:
        return f"{self.count} {label(self.bean)}" if self.bean else "empty"


EMPTY_FIELD = Field(None, 0)


@replaceable
@dataclass(frozen=True, slots=True)
class Player:
    """One seat's cards. Hands are front first; coin piles bottom first (top = last earned)."""

    name: str
    hand: tuple[str, ...]
    fields: tuple[Field, ...]
    trade_area: tuple[str, ...]
    coins: tuple[str, ...]
    bought_field: bool = False

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> Player: ...
        @staticmethod
        def build(*values: Any) -> Player: ...


@replaceable
@dataclass(frozen=True, slots=True)
class Offer:
    """An open trade offer (RULES §6). Hand cards are named by position, so the order of the
    hand is never in doubt; face-up and trade-area cards are interchangeable and named by bean."""

    id: int
    proposer: int
    to: int
    hand: tuple[int, ...]
    revealed: tuple[str, ...]
    trade_area: tuple[str, ...]
    gives: tuple[str, ...]
    """All the beans the proposer gives: hand cards by position, then face-up, then trade area."""
    wants: tuple[str, ...]

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> Offer: ...
        @staticmethod
        def build(*values: Any) -> Offer: ...


@dataclass(frozen=True, slots=True)
class Result:
    """The final standing (RULES §10.6–10.7)."""

    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    winners: tuple[int, ...]
    decided_by: str | None
    """The tie-break that decided among equal scores; None when one player had the most coins."""


@replaceable
@dataclass(frozen=True, slots=True)
class GameState:
    """Everything on the table, including what no player may see (the order of the draw pile).

    `draw_pile` is top first in digital games; in tabletop games the order is unknown and the tuple
    is the pile's contents as a multiset, in bean-table order."""

    ruleset: Ruleset
    mode: str
    seed: int | None
    start_seat: int
    players: tuple[Player, ...]
    draw_pile: tuple[str, ...]
    discard_pile: tuple[str, ...]
    """Bottom first; the last card is the top."""
    removed: tuple[str, ...]
    """Cards out of the game (duel third-field coins, RULES §9.3)."""
    revealed: tuple[str, ...]
    """The active player's face-up cards: phase 2's reveal, the duel's step-3 draw."""
    offers: tuple[Offer, ...]
    next_offer: int
    duel_offer: tuple[str, ...]
    """Cards a duel player left for the opponent (RULES §11.2 step 3)."""
    exhaustions: int
    reshuffles: int
    end_triggered: bool
    phase: Phase
    active: int
    turn: int
    planted: int
    """Cards the active player planted from the hand this turn (at most two, RULES §5.1.3)."""
    hand_discarded: bool
    """Whether the duel's one optional hand discard was used this turn (RULES §11.2 step 2)."""
    result: Result | None
    pools: tuple[tuple[str, ...], ...] = ()
    """A game with unknown hands: for each draw pile the game has had (0: the deck; n: the pile
    the n-th reshuffle made), the beans of its cards nobody has seen yet, in bean-table order —
    those still in the draw pile and those in hands. Each pile's unseen cards are exactly its
    beans not yet named, so a card shown must be one of them (RULES §4.4). Empty in every other
    game: there the draw pile itself is what no one has seen."""

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> GameState: ...
        @staticmethod
        def build(*values: Any) -> GameState: ...

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        return self  # immutable all the way down

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.ENDED

    @property
    def hands_unknown(self) -> bool:
        """Whether this is a game with unknown hands (its cards are named as the table shows
        them)."""
        return bool(self.pools)

    def unseen_beans(self, pile: int | None = None) -> tuple[str, ...]:
        """The beans nobody has seen yet of draw pile `pile` (default: the current one), in a game
        with unknown hands; what a tabletop draw pile may hold otherwise."""
        if not self.pools:
            return self.draw_pile
        return self.pools[self.reshuffles if pile is None else pile]

    def name(self, seat: int) -> str:
        return self.players[seat].name

    @property
    def phase_text(self) -> str:
        """Where the active player's turn stands, for people (`phase 3, planting the traded
        cards`)."""
        return (DUEL_PHASE_TEXT if self.ruleset.duel else PHASE_TEXT)[self.phase]

    def to_dict(self) -> dict[str, Any]:
        """JSON primitives (for snapshots and audits); `from_dict` is the inverse."""
        data: dict[str, Any] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if field.name == "ruleset":
                value = value.to_dict()
            elif field.name == "players":
                value = [_player_to_dict(player) for player in value]
            elif field.name == "offers":
                value = [_plain(offer) for offer in value]
            elif field.name == "result":
                value = None if value is None else _plain(value)
            elif field.name == "pools":
                value = [list(pool) for pool in value]
            elif isinstance(value, tuple):
                value = list(value)
            data[field.name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        values = dict(data)
        values["ruleset"] = Ruleset.from_dict(values["ruleset"])
        values["players"] = tuple(_player_from_dict(player) for player in values["players"])
        values["offers"] = tuple(_tupled(Offer, offer) for offer in values["offers"])
        values["result"] = values["result"] and _tupled(Result, values["result"])
        values["phase"] = Phase(values["phase"])
        for key in ("draw_pile", "discard_pile", "removed", "revealed", "duel_offer"):
            values[key] = tuple(values[key])
        values["pools"] = tuple(tuple(pool) for pool in values.get("pools", ()))
        return cls(**values)


def _plain(obj: Any) -> dict[str, Any]:
    return {
        f.name: list(getattr(obj, f.name))
        if isinstance(getattr(obj, f.name), tuple)
        else getattr(obj, f.name)
        for f in fields(obj)
    }


def _tupled(cls: type, data: dict[str, Any]) -> Any:
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def _player_to_dict(player: Player) -> dict[str, Any]:
    data = _plain(player)
    data["fields"] = [list(field) for field in player.fields]
    return data


def _player_from_dict(data: dict[str, Any]) -> Player:
    player = _tupled(Player, data)
    fields_ = tuple(Field(bean, count) for bean, count in data["fields"])
    return Player(
        player.name, player.hand, fields_, player.trade_area, player.coins, player.bought_field
    )
