"""Commands: malformed (makes no sense in any game) versus illegal (RULES forbid it now), the JSON
form `parse_command` reads, and `legal_commands` agreeing with `decide` on what is allowed."""

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules import (
    BohnanzaError,
    MalformedCommand,
    Phase,
    RuleViolation,
    decide,
    legal_commands,
    parse_command,
)
from domain.rules.commands import (
    _PARSERS,
    COMMAND_TYPES,
    Accept,
    BuyField,
    Deal,
    Decline,
    Draw,
    EndTrading,
    Harvest,
    Offer,
    Plant,
    Reveal,
    Withdraw,
)
from domain.rules.legal import host_legal_commands
from domain.rules.state import TABLETOP
from tests.builders import random_game, run, seen_at_the_table, table
from tests.marks import slow_beyond

# --- parse_command -----------------------------------------------------------------------------------

COMMANDS = [
    Deal((("chili", "blue"), ("red",))),
    Plant(0, 1),
    Plant(2, 0, "black-eyed"),
    Reveal(0),
    Reveal(0, ("red", "soy")),
    Offer(0, 2, hand=(0, 3), revealed=("red",), wants=("blue", "blue")),
    Accept(2, 1, hand=(1, 4)),
    Decline(1, 3),
    Withdraw(0, 3),
    EndTrading(0),
    Harvest(3, 2),
    BuyField(1),
    Draw(0),
    Draw(0, ("red", "soy", "wax")),
]


@pytest.mark.parametrize("command", COMMANDS, ids=[c.type for c in COMMANDS])
def test_every_command_reads_back_from_its_json_form(command):
    assert parse_command(command.to_dict()) == command


def test_bean_names_in_json_are_read_case_insensitively():
    assert parse_command({"type": "plant", "seat": 0, "field": 0, "bean": "Chili"}).bean == "chili"


MALFORMED = [
    pytest.param(["plant", 0, 0], "a command is a JSON object", id="not an object"),
    pytest.param({"type": "sow", "seat": 0}, "unknown command type 'sow'", id="unknown type"),
    pytest.param({"seat": 0}, "unknown command type None", id="no type"),
    pytest.param({"type": "harvest", "seat": 0}, "harvest needs 'field'", id="missing field"),
    pytest.param(
        {"type": "harvest", "seat": 0, "field": 0, "coins": 2},
        "harvest has no field 'coins'",
        id="unknown field",
    ),
    pytest.param(
        {"type": "harvest", "seat": 0, "field": -1},
        "field must not be negative",
        id="negative field",
    ),
    pytest.param(
        {"type": "harvest", "seat": "0", "field": 0},
        "seat must be a whole number",
        id="seat as text",
    ),
    pytest.param(
        {"type": "harvest", "seat": True, "field": 0},
        "seat must be a whole number",
        id="seat as boolean",
    ),
    pytest.param(
        {"type": "plant", "seat": 0, "field": 0, "bean": "lima"},
        "bean: unknown bean 'lima'",
        id="unknown bean",
    ),
    pytest.param(
        {"type": "offer", "seat": 0, "to": 1, "hand": [2, 2]},
        "hand names a position twice",
        id="hand position twice",
    ),
    pytest.param(
        {"type": "offer", "seat": 0, "to": 1, "wants": "blue"},
        "wants must be a list",
        id="wants not a list",
    ),
]


def read_field_by_field(data: dict):
    """The reading `parse_command` writes out per command type, as a plain loop over the fields
    (how it was written before): the reference it must agree with."""
    kind = data["type"]
    cls = COMMAND_TYPES[kind]
    names = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(data.keys() - {"type", *names})
    if unknown:
        raise MalformedCommand(f"{kind} has no field {unknown[0]!r}; fields: {', '.join(names)}")
    values = {}
    for field in dataclasses.fields(cls):
        if field.name not in data:
            if field.default is dataclasses.MISSING:
                raise MalformedCommand(f"{kind} needs {field.name!r}")
            continue
        value = data[field.name]
        optional = field.default is None
        values[field.name] = (
            None if value is None and optional else _PARSERS[field.name](field.name, value)
        )
    return cls(**values)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 5) | st.sampled_from(["blue", "Red", "?", "lima"]),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)
FIELD_NAMES = sorted({*_PARSERS, "coins"} - {"changes"})


@settings(max_examples=400, deadline=None)
@given(
    kind=st.sampled_from(sorted(set(COMMAND_TYPES) - {"correct"})),
    body=st.dictionaries(st.sampled_from(FIELD_NAMES), JSON_VALUES, max_size=5),
)
def test_reading_a_command_agrees_with_reading_it_field_by_field(kind, body):
    data = {"type": kind, **body}
    try:
        expected = read_field_by_field(data)
    except MalformedCommand as refusal:
        expected = refusal
    try:
        read = parse_command(data)
    except MalformedCommand as refusal:
        read = refusal
    if isinstance(expected, MalformedCommand):
        assert isinstance(read, MalformedCommand)
        assert str(read) == str(expected)
    else:
        assert read == expected


@pytest.mark.parametrize(("data", "complaint"), MALFORMED)
def test_a_command_that_makes_no_sense_in_any_game_is_malformed(data, complaint):
    with pytest.raises(MalformedCommand, match=complaint):
        parse_command(data)


# --- malformed versus illegal in decide -----------------------------------------------------------

IN_CODE = [
    # commands built in code (bots, imports) skip parse_command; decide still rejects nonsense
    pytest.param(Harvest(7, 0), "seat 7 does not exist", id="seat beyond the table"),
    pytest.param(Harvest(0, 3), "field index 3 does not exist", id="fourth field"),
    pytest.param(Harvest(0, -1), "field index -1 does not exist", id="negative field"),
    pytest.param(
        Offer(0, 1, hand=(5,)), "hand position 5 does not exist", id="position beyond the hand"
    ),
    pytest.param(
        Offer(0, 1, hand=(-1,)), "hand position -1 does not exist", id="negative position"
    ),
    pytest.param(Offer(0, 1, hand=(0, 0)), "names hand position 0 twice", id="position twice"),
    pytest.param(Offer(0, -1, hand=(0,)), "seat -1 does not exist", id="negative partner"),
]


@pytest.mark.parametrize(("command", "complaint"), IN_CODE)
def test_decide_rejects_a_malformed_command_built_in_code(command, complaint):
    state = table(phase="trade", hands={0: "chili blue", 1: "soy"}, fields={0: ["2 red", ""]})

    with pytest.raises(MalformedCommand, match=complaint):
        decide(state, command)


def test_a_well_formed_command_the_rules_forbid_now_is_a_rule_violation_citing_its_section():
    state = table(hands={0: "chili"}, fields={0: ["red", "3 blue"]})

    with pytest.raises(RuleViolation) as rejected:
        decide(state, Harvest(0, 0))

    assert (rejected.value.rule, rejected.value.title) == ("RULES §8.3", "bean protection")
    assert isinstance(rejected.value, BohnanzaError)


def test_applying_a_command_leaves_the_earlier_state_as_it_was():
    state = table(hands={0: "blue blue"}, fields={0: ["red", "3 blue"]}, coins={0: 3})
    before = state.to_dict()

    run(state, Plant(0, 1), Plant(0, 1), BuyField(0), Harvest(0, 1))

    assert state.to_dict() == before


# --- legal_commands agrees with decide ---------------------------------------------------------------

GAMES = [
    *[("rio-grande", n) for n in (3, 4, 5, 6, 7)],
    *[(preset, n) for preset in ("amigo", "amigo-1997") for n in (3, 4, 5)],
]


def _candidates(rng, state, seat):
    """Commands of every kind a seat might try now, legal or not."""
    player = state.players[seat]
    yield from (Harvest(seat, field) for field in range(3))
    yield from (BuyField(seat), EndTrading(seat))
    if state.mode == "digital":
        yield from (Reveal(seat), Draw(seat))
    else:
        rules = state.ruleset
        yield Reveal(seat, seen_at_the_table(rng, state, rules.reveal))
        yield Draw(seat, seen_at_the_table(rng, state, rules.draw))
    if state.phase is Phase.PLANT:
        yield from (Plant(seat, field) for field in range(3))
    else:
        beans = {*player.trade_area, *state.revealed, "red"}
        yield from (Plant(seat, field, bean) for field in range(3) for bean in sorted(beans))
    for offer in state.offers:
        yield from (Accept(seat, offer.id), Decline(seat, offer.id), Withdraw(seat, offer.id))


def _accepted(state, command) -> bool:
    try:
        decide(state, command)
    except RuleViolation:
        return False
    return True


def _listed(legal, command) -> bool:
    """Whether `legal` lists `command`, or (tabletop) the chance step it names the cards of."""
    if legal.chance and isinstance(command, Reveal | Draw) and command.cards is not None:
        return command.type == legal.chance.kind and command.seat == legal.chance.seat
    return command in legal.commands


@pytest.mark.parametrize(
    ("preset", "players", "mode"),
    slow_beyond(
        [
            pytest.param("rio-grande", 3, "tabletop", id="rio-grande-3p-tabletop"),
            *[
                pytest.param(preset, n, "digital", id=f"{preset}-{n}p-digital")
                for preset, n in GAMES
            ],
            pytest.param("rio-grande", 6, "tabletop", id="rio-grande-6p-tabletop"),
            pytest.param("amigo", 5, "tabletop", id="amigo-5p-tabletop"),
        ],
        keep=2,
    ),
)
def test_every_listed_command_is_accepted_and_every_unlisted_one_rejected(preset, players, mode):
    rng = random.Random(players)
    for state in random_game(players, preset, mode=mode):
        for seat in sorted({state.active, rng.randrange(players)}):
            legal = legal_commands(state, seat)
            for command in legal:
                assert _accepted(state, command), (command, state.phase)
            for command in _candidates(rng, state, seat):
                assert _accepted(state, command) == _listed(legal, command), command


def _offers_within(offer_range, rng) -> list[Offer]:
    """Offers the range admits: to each listed seat, a card of each kind it lists (hand, face
    up, trade area) or none, for one bean it lists."""
    offers = []
    for to in offer_range.to:
        hand = tuple(rng.sample(offer_range.hand, min(2, len(offer_range.hand))))
        revealed = offer_range.revealed[:1]
        area = offer_range.trade_area[:1]
        wants = (rng.choice(offer_range.wants),)
        offers += [
            Offer(offer_range.seat, to, hand, revealed, area, wants),
            Offer(offer_range.seat, to, wants=wants),
        ]
    return offers


@pytest.mark.parametrize("players", [3, 5])
def test_the_host_of_a_tabletop_game_is_given_each_seats_offer_range(players):
    for state in random_game(players, mode=TABLETOP):
        host = host_legal_commands(state)

        seats = [legal_commands(state, seat).offer for seat in range(players)]
        assert host.offers == tuple(offer for offer in seats if offer is not None)


@pytest.mark.parametrize("players", [3, 5])
def test_every_offer_within_a_range_the_host_is_given_is_accepted(players):
    rng = random.Random(players)
    for state in random_game(players, mode=TABLETOP):
        for offer_range in host_legal_commands(state).offers:
            for offer in _offers_within(offer_range, rng):
                assert _accepted(state, offer), (offer, state.phase)


def test_in_trading_the_host_may_offer_for_the_active_seat_to_anyone_and_for_the_others_to_it():
    state = table(4, mode=TABLETOP, phase=Phase.TRADE, active=1, revealed="red soy")

    ranges = {offer.seat: offer for offer in host_legal_commands(state).offers}

    assert ranges[1].to == (0, 2, 3)
    assert ranges[1].revealed == ("red", "soy")
    assert {seat: ranges[seat].to for seat in (0, 2, 3)} == {0: (1,), 2: (1,), 3: (1,)}
    assert all(ranges[seat].revealed == () for seat in (0, 2, 3))


def test_a_seats_own_offer_range_is_the_only_one_it_is_given():
    state = table(4, phase=Phase.TRADE, active=1, revealed="red soy")

    legal = legal_commands(state, 2)

    assert legal.offers == (legal.offer,)
    assert legal.offer.seat == 2
