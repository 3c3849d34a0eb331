"""Bots that play legal moves, and a table that decides who acts next.

`RandomBot` picks uniformly among legal moves (with a few brakes so games end); `GreedyBot` plants
and harvests for value and proposes and accepts trades and donations that help it. Both see the
full `GameState` but use only what their seat may know (own hand, public table). In a game with
unknown hands the state is the host's, whose hands are unseen: a bot names an unseen card's bean,
as the table would see it, from the beans its legal commands and offer range say it may be.

`Table` is the turn scheduler: several seats may act at once (harvests, answers to offers, phase 3),
so it asks whoever has something to do, in an order drawn from its own random generator.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar
from uuid import UUID

from .application import Bohnanza, Outcome
from .rules import commands as cmd
from .rules import events as ev
from .rules.decide import decide, draw_through, start_game
from .rules.evolve import evolve, fold
from .rules.legal import Legal, OfferRange, chance_step, legal_commands
from .rules.rulesets import Ruleset, resolve_ruleset
from .rules.state import DIGITAL, KNOWN_HANDS, GameState, Phase, Player
from .rules.table import harvest_coins, harvestable_fields

OFFERS_PER_TURN = 6
"""The active player's offers per turn, so trading always ends."""


class Bot(Protocol):
    name: str

    def choose(
        self, state: GameState, seat: int, legal: Legal, rng: random.Random, offers_made: int
    ) -> cmd.Command | None:
        """The seat's next command, or None to let others act (never None when it must act)."""


def _must_act(state: GameState, seat: int) -> bool:
    """Whether the game waits for this seat."""
    phase = state.phase
    if phase is Phase.PLANT_TRADED:
        return bool(state.players[seat].trade_area)
    if phase is Phase.TRADE:
        return seat == state.active or any(offer.to == seat for offer in state.offers)
    return seat == state.active


def _responses(legal: Iterable[cmd.Command]) -> list[cmd.Command]:
    return [c for c in legal if isinstance(c, cmd.Accept | cmd.Decline)]


class RandomBot:
    """Uniform among legal moves; harvests and purchases are rare unless forced."""

    name = "random"

    def choose(
        self, state: GameState, seat: int, legal: Legal, rng: random.Random, offers_made: int
    ) -> cmd.Command | None:
        responses = _responses(list(legal))
        if responses:
            return rng.choice(responses)
        proposing = state.phase is Phase.TRADE and seat != state.active and not offers_made
        if proposing and legal.offer and rng.random() < 0.3:
            offer = _random_offer(legal.offer, seat, rng)
            if offer is not None:
                return offer
        if not _must_act(state, seat):
            optional = [c for c in legal if isinstance(c, cmd.Harvest | cmd.BuyField)]
            return rng.choice(optional) if optional and rng.random() < 0.02 else None
        if legal.offer and rng.random() < 0.5 and offers_made < OFFERS_PER_TURN:
            offer = _random_offer(legal.offer, seat, rng)
            if offer is not None:
                return offer
        moves = [
            c
            for c in legal
            if not isinstance(c, cmd.Harvest | cmd.BuyField | cmd.Withdraw) or rng.random() < 0.1
        ]
        if seat != state.active:
            moves = [c for c in moves if not isinstance(c, cmd.Withdraw)]
        return rng.choice(moves or list(legal))


_Card = TypeVar("_Card", int, str)
"""A card in an offer: a hand position or a bean."""


def _random_offer(offer: OfferRange, seat: int, rng: random.Random) -> cmd.Offer | None:
    def some(cards: Sequence[_Card], most: int) -> tuple[_Card, ...]:
        return tuple(rng.sample(cards, min(len(cards), rng.randint(0, most))))

    # With unknown hands each hand card given is named as the table would see it: one bean its
    # pile may still hold. One such card at most, so that the names never contradict each other.
    gives_hand = some(offer.hand, 1 if offer.hand_beans else 2)
    gives_revealed = some(offer.revealed, 1)
    gives_area = some(offer.trade_area, 1)
    wants = tuple(rng.choice(offer.wants) for _ in range(rng.randint(0, 1)))
    if not (gives_hand or gives_revealed or gives_area or wants):
        return None
    beans = _named(offer, gives_hand, rng)
    return cmd.Offer(
        seat, rng.choice(offer.to), gives_hand, gives_revealed, gives_area, wants, beans
    )


def _named(
    offer: OfferRange, positions: Sequence[int], rng: random.Random
) -> tuple[str, ...] | None:
    """An offer's `hand_beans` for the hand cards at `positions`: in a game with unknown hands
    one of the beans each card may be (a known card has one), else None."""
    if not offer.hand_beans:
        return None
    return tuple(rng.choice(offer.hand_beans[position]) for position in positions)


class GreedyBot:
    """Plants where beans grow, harvests what pays, trades away what would spoil its fields."""

    name = "greedy"

    def choose(
        self, state: GameState, seat: int, legal: Legal, rng: random.Random, offers_made: int
    ) -> cmd.Command | None:
        player = state.players[seat]
        moves = list(legal)
        responses = _responses(moves)
        if responses:
            return self._respond(state, seat, responses)
        phase = state.phase
        if phase is Phase.TRADE and seat != state.active:
            if not offers_made and legal.offer:
                offer = self._propose(state, seat, legal.offer, rng)
                if offer is not None:
                    return offer
            return self._opportunistic_harvest(state, seat, moves)
        if not _must_act(state, seat):
            return self._opportunistic_harvest(state, seat, moves)
        if phase is Phase.TRADE:
            if offers_made < (OFFERS_PER_TURN if seat == state.active else 1) and legal.offer:
                offer = self._propose(state, seat, legal.offer, rng)
                if offer is not None:
                    return offer
            withdraw = [c for c in moves if isinstance(c, cmd.Withdraw)]
            if withdraw:
                return withdraw[0]
            return next((c for c in moves if isinstance(c, cmd.EndTrading)), None)
        plants = [c for c in moves if isinstance(c, cmd.Plant)]
        if phase is Phase.PLANT:
            if state.planted == 0 and plants:
                return self._best_plant(state, seat, plants)
            if state.planted == 1 and plants and player.hand:
                useful = [c for c in plants if player.fields[c.field].bean == _bean(c, player)]
                if useful:
                    return useful[0]
            discards = [c for c in moves if isinstance(c, cmd.DiscardFromHand)]
            spoiler = next((c for c in discards if not _fits(player, _bean(c, player))), None)
            if spoiler is not None:
                return spoiler
            reveal = [c for c in moves if isinstance(c, cmd.Reveal)]
            if reveal:
                return reveal[0]
            if state.planted == 0 and player.hand:
                return self._make_room(state, seat, moves)
        if phase in (Phase.PLANT_TRADED, Phase.RESOLVE_OFFER, Phase.PLANT_DRAWN):
            return self._plant_or_pass(state, seat, moves, plants)
        draw = [c for c in moves if isinstance(c, cmd.Draw)]
        return draw[0] if draw else rng.choice(moves)

    # --- planting and harvesting -----------------------------------------------------------

    def _best_plant(self, state: GameState, seat: int, plants: list[cmd.Plant]) -> cmd.Plant:
        """The fullest field of the same bean, else an empty one, else (implicit-harvest house
        rule) the field whose harvest pays most."""
        player = state.players[seat]

        def preference(plant: cmd.Plant) -> tuple[int, int, int]:
            field = player.fields[plant.field]
            if field.bean == _bean(plant, player):
                return (2, field.count, -plant.field)
            if field.bean is None:
                return (1, 0, -plant.field)
            return (0, harvest_coins(state, seat, plant.field), -plant.field)

        return max(plants, key=preference)

    def _plant_or_pass(
        self, state: GameState, seat: int, moves: list[cmd.Command], plants: list[cmd.Plant]
    ) -> cmd.Command:
        fields = state.players[seat].fields
        matching = [c for c in plants if fields[c.field].bean == c.bean]
        if matching:
            return max(matching, key=lambda c: fields[c.field].count)
        passing = [c for c in moves if isinstance(c, cmd.OfferRest | cmd.DiscardOffered)]
        if state.phase is Phase.PLANT_DRAWN and passing and len(plants) == 0:
            return passing[0]
        if plants:
            return plants[0]
        if passing:
            return passing[0]
        return self._make_room(state, seat, moves)

    def _make_room(self, state: GameState, seat: int, moves: list[cmd.Command]) -> cmd.Command:
        """Forced: harvest the field that pays most, or buy the third field if it pays little."""
        harvests = [c for c in moves if isinstance(c, cmd.Harvest)]
        best = max(harvests, key=lambda c: harvest_coins(state, seat, c.field), default=None)
        buy = [c for c in moves if isinstance(c, cmd.BuyField)]
        if buy and (best is None or harvest_coins(state, seat, best.field) <= 1):
            return buy[0]
        assert best is not None, "RULES §7.4: a legal harvest always exists when forced"
        return best

    def _opportunistic_harvest(
        self, state: GameState, seat: int, moves: list[cmd.Command]
    ) -> cmd.Command | None:
        """Harvest a field that pays the most it ever can."""
        player = state.players[seat]
        for index in harvestable_fields(state, seat):
            field = player.fields[index]
            assert field.bean is not None
            meter = state.ruleset.meters[field.bean]
            top = max(level for level in meter if level is not None)
            if field.count >= top:
                return cmd.Harvest(seat, index)
        return None

    # --- trading ----------------------------------------------------------------------------

    def _propose(
        self, state: GameState, seat: int, offer: OfferRange, rng: random.Random
    ) -> cmd.Offer | None:
        me = state.players[seat]
        hand = _hand_as_shown(offer, me, rng)
        if seat == state.active:
            for bean in dict.fromkeys(offer.revealed):
                if not _fits(me, bean):
                    taker = _planter_of(state, bean, exclude=seat, rng=rng)
                    if taker is not None and _no_open_offer(state, seat, taker):
                        return cmd.Offer(seat, taker, revealed=(bean,))
            for position in offer.hand[:3]:
                bean = hand[position]
                if not _fits(me, bean):
                    taker = _planter_of(state, bean, exclude=seat, rng=rng)
                    if taker is not None and _no_open_offer(state, seat, taker):
                        wants = _wanted_bean(me)
                        named = _as_named(offer, hand, (position,))
                        return cmd.Offer(seat, taker, (position,), wants=wants, hand_beans=named)
            return None
        wanted = [bean for bean in state.revealed if _grows(me, bean)]
        if not wanted or not _no_open_offer(state, seat, state.active):
            return None
        spare = [position for position in offer.hand if not _fits(me, hand[position])]
        gives = (spare[0],) if spare else ()
        named = _as_named(offer, hand, gives)
        return cmd.Offer(seat, state.active, gives, wants=(wanted[0],), hand_beans=named)

    def _respond(self, state: GameState, seat: int, responses: list[cmd.Command]) -> cmd.Command:
        me = state.players[seat]
        offers = {offer.id: offer for offer in state.offers}
        best: tuple[int, cmd.Command] | None = None
        for response in responses:
            if not isinstance(response, cmd.Accept):
                continue
            offer = offers[response.offer]
            gain = sum(_card_value(me, bean) for bean in offer.gives)
            given = [*(response.hand_beans or [me.hand[p] for p in response.hand])]
            given += response.revealed
            cost = sum(_card_value(me, bean) for bean in given)
            score = gain - cost
            if best is None or score > best[0]:
                best = (score, response)
        if best is not None and best[0] > 0:
            return best[1]
        return next(r for r in responses if isinstance(r, cmd.Decline))


def _bean(command: cmd.Plant | cmd.DiscardFromHand, player: Player) -> str:
    """The bean a plant or a duel discard from the hand moves: the one it names (a card nobody
    has seen, in a game with unknown hands), else the front or discarded card's own."""
    if command.bean is not None:
        return command.bean
    if isinstance(command, cmd.Plant):
        return player.hand[0]
    return player.hand[command.position]


def _hand_as_shown(offer: OfferRange, player: Player, rng: random.Random) -> list[str]:
    """The seat's hand, bean by bean, as an offer would show it: in a game with unknown hands
    each card nobody has seen is one of the beans its pile may still hold, drawn at random."""
    if not offer.hand_beans:
        return list(player.hand)
    return [rng.choice(beans) for beans in offer.hand_beans]


def _as_named(
    offer: OfferRange, hand: Sequence[str], positions: tuple[int, ...]
) -> tuple[str, ...] | None:
    """An offer's `hand_beans` for these positions of a hand as `_hand_as_shown` shows it (None
    with known hands: the cards say it)."""
    return tuple(hand[position] for position in positions) if offer.hand_beans else None


def _fits(player: Player, bean: str) -> bool:
    return any(field.bean in (None, bean) for field in player.fields)


def _grows(player: Player, bean: str) -> bool:
    return any(field.bean == bean for field in player.fields)


def _card_value(player: Player, bean: str) -> int:
    if _grows(player, bean):
        return 2
    return 1 if _fits(player, bean) else -2


def _wanted_bean(player: Player) -> tuple[str, ...]:
    growing = [field for field in player.fields if field.bean is not None]
    if not growing:
        return ()
    return (max(growing, key=lambda field: field.count).bean,)  # type: ignore[return-value]


def _planter_of(state: GameState, bean: str, exclude: int, rng: random.Random) -> int | None:
    seats = [
        seat
        for seat, player in enumerate(state.players)
        if seat != exclude and _grows(player, bean)
    ]
    return rng.choice(seats) if seats else None


def _no_open_offer(state: GameState, proposer: int, to: int) -> bool:
    return not any(o.proposer == proposer and o.to == to for o in state.offers)


BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


class Table:
    """Drives a game with one bot per seat: `next_command(state)` until the game is over."""

    def __init__(self, bots: Sequence[Bot], rng: random.Random) -> None:
        self.bots = list(bots)
        self.rng = rng
        self._offers: Counter[tuple[int, int]] = Counter()

    def _priority(self, state: GameState, seat: int) -> int:
        """Answers to offers first, then players who may still propose, then whoever must act."""
        if any(offer.to == seat for offer in state.offers):
            return 0
        if state.phase is Phase.TRADE and seat != state.active:
            return 1 if not self._offers[(state.turn, seat)] else 3
        return 2 if _must_act(state, seat) else 3

    def next_command(self, state: GameState) -> cmd.Command:
        """The next command some seat's bot wants to play (the game is not over). In a tabletop
        game the table's cards are named as a host would enter them: dealt, revealed and drawn
        at random from what the pile may hold."""
        if state.phase is Phase.DEAL:
            return self._deal(state)
        seats = list(range(len(state.players)))
        self.rng.shuffle(seats)
        seats.sort(key=lambda seat: self._priority(state, seat))
        for seat in seats:
            legal = self._with_chance(state, seat, legal_commands(state, seat))
            if not legal:
                continue
            offers_made = self._offers[(state.turn, seat)]
            choice = self.bots[seat].choose(state, seat, legal, self.rng, offers_made)
            if choice is None:
                continue
            if isinstance(choice, cmd.Offer):
                self._offers[(state.turn, seat)] += 1
            return choice
        raise RuntimeError(f"no seat can act in phase {state.phase}: the rules deadlocked")

    def _deal(self, state: GameState) -> cmd.Deal:
        step = chance_step(state)
        assert step is not None, "only a tabletop game waits for its deal to be named"
        assert step.hands is not None
        deck = list(state.draw_pile)
        self.rng.shuffle(deck)
        hands, start = [], 0
        for size in step.hands:
            hands.append(tuple(deck[start : start + size]))
            start += size
        return cmd.Deal(tuple(hands))

    def _with_chance(self, state: GameState, seat: int, legal: Legal) -> Legal:
        """`legal`, its tabletop chance step (a reveal or a draw) made a command naming cards,
        as the host would enter it."""
        step = legal.chance
        if step is None:
            return legal
        kind = {"reveal": cmd.Reveal, "draw": cmd.Draw}[step.kind]
        cards = draw_through(state, step.count, self.rng.choice)
        chance = kind(state.active, tuple(cards))
        return Legal((*legal.commands, chance), legal.offer, None, legal.offers)


NAMES = ("Ana", "Ben", "Cleo", "Dan", "Eve", "Fay", "Gus")
MAX_COMMANDS = 10_000


def simulate(
    preset: str,
    players: int,
    *,
    bot: str = "greedy",
    seed: int = 0,
    options: dict[str, object] | None = None,
) -> list[ev.Event]:
    """The facts of a complete digital game between bots, decided and folded in memory."""
    return simulate_under(resolve_ruleset(preset, players, options), bot=bot, seed=seed)


def simulate_under(
    ruleset: Ruleset,
    *,
    bot: str = "greedy",
    seed: int = 0,
    mode: str = DIGITAL,
    hands: str = KNOWN_HANDS,
) -> list[ev.Event]:
    """`simulate`, under a resolved ruleset as it is (a record's own, say). A tabletop game's
    cards are named at random, as a host would enter them (`Table`); with unknown `hands` only
    as the table shows them (plants, trades, the duel's discards name the beans)."""
    players = ruleset.players
    shuffled = seed if mode == DIGITAL else None
    facts = start_game(
        ruleset, NAMES[:players], start_seat=seed % players, mode=mode, seed=shuffled, hands=hands
    )
    state = fold(facts)
    table = Table([BOTS[bot]() for _ in range(players)], random.Random(seed))
    for _ in range(MAX_COMMANDS):
        if state.is_over:
            return facts
        new = decide(state, table.next_command(state))
        for fact in new:
            state = evolve(state, fact)
        facts += new
    raise RuntimeError(f"the game did not end within {MAX_COMMANDS} commands")


def play_stored(
    app: Bohnanza,
    game_id: UUID,
    table: Table,
    after_each: Callable[[Outcome], None] | None = None,
) -> GameState:
    """Play a stored game to its end with `table`'s bots, storing every command as it goes;
    the final state."""
    state = app.state(game_id)
    while not state.is_over:
        outcome = app.execute(game_id, table.next_command(state))
        state = fold(outcome.facts, state)
        if after_each is not None:
            after_each(outcome)
    return state
