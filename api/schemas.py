"""Request and response schemas (marshmallow): the API's contract, published as OpenAPI 3."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate, validates_schema

from domain.limits import RECORD_BYTES
from domain.rules import names
from domain.rules.beans import BEANS
from domain.rules.commands import ACTIONS, COMMAND_TYPES
from domain.rules.events import EVENT_TYPES
from domain.rules.rulesets import DEFAULT_PRESET, PRESETS
from domain.rules.state import DIGITAL, HANDS, KNOWN_HANDS, MODES, UNKNOWN, UNSEEN, Phase


def integer(**kwargs: Any) -> fields.Integer:
    """An integer field of a JSON body: a JSON number without a fraction, never coerced (1.5 and
    "1" are refused, not read as 1). Query parameters arrive as text: `QueryInteger`."""
    return fields.Integer(strict=True, **kwargs)


LARGEST_QUERY_INTEGER = 2**63 - 1
"""What a database's integer holds: the bound of every integer query parameter."""
DIGITS = re.compile(r"[0-9]{1,19}")
"""Enough for every integer a query parameter may be (LARGEST_QUERY_INTEGER has 19 digits)."""


class QueryInteger(fields.Integer):
    """An integer query parameter: ASCII digits only, as a URL writes a number (Python would
    also read `+1`, ` 1` or full-width digits), at most LARGEST_QUERY_INTEGER, which the
    OpenAPI document says (as `maximum`) for every one."""

    default_error_messages: ClassVar[dict[str, str]] = {  # marshmallow merges them
        "invalid": "Not a valid integer: a number in the query is written in the digits 0-9 "
        "alone (no sign, space or point)."
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(validate.Range(max=LARGEST_QUERY_INTEGER))

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, str) and not DIGITS.fullmatch(value):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


SEAT_NUMBER = {"validate": validate.Range(min=0, max=6)}
INDEX = {"validate": validate.Range(min=0, max=200)}
STATUSES = ("in-progress", "ended")


def printable(text: str) -> bool:
    """Text people read (a place, a tag) holds the characters of names (domain/rules/names.py
    says which), and if more than spaces, something that shows. The OpenAPI document says the
    same as a pattern (api/openapi.py)."""
    if not names.printable(text):  # the text as sent: a newline is refused, not trimmed
        raise ValidationError(names.NOT_PRINTABLE)
    if text.strip() and not names.visible(text):  # Length speaks for ""
        raise ValidationError(names.INVISIBLE)
    return True


def name(text: str) -> bool:
    """A name is printable text with something that shows: spaces alone are no name."""
    printable(text)
    if not names.visible(text):
        raise ValidationError(names.INVISIBLE)
    return True


NAME = {"validate": [validate.Length(min=1, max=names.MAX_NAME), name]}


class RulesetOptions(fields.Dict):
    """Ruleset options by name (domain/rules/rulesets.py checks them), documented option by
    option with the values each takes (api/openapi.py)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(keys=fields.String(), **kwargs)


def _beans(**kwargs: object) -> fields.List:
    return fields.List(fields.String(validate=validate.OneOf(list(BEANS))), **kwargs)


def _cards(**kwargs: object) -> fields.List:
    """Beans, or "?" for a card nobody has seen (the draws of a game with unknown hands)."""
    return fields.List(fields.String(validate=validate.OneOf([*BEANS, UNSEEN])), **kwargs)


class ErrorSchema(Schema):
    """Every error, everywhere: {code, status, message, errors} (+ rule for rule violations and
    for the other refusals that cite RULES)."""

    code = fields.String(required=True, metadata={"example": "rule_violation"})
    status = fields.Integer(required=True, metadata={"example": 409})
    message = fields.String(required=True)
    errors = fields.Dict(
        required=True,
        metadata={
            "description": "Messages by location (`json`, `query`, `headers`), then by field "
            "name (`_schema`: the whole location); a message about a location as a whole "
            "(a body that is no JSON) is a list of messages under it. Empty when the message "
            "says it all"
        },
    )
    rule = fields.String(
        metadata={
            "description": "The section of the rules reference broken or that says why, e.g. "
            "RULES §8.3 (/rules#s8.3): rule violations, and a setup, ruleset or command refused "
            "with a section"
        }
    )
    current_version = fields.Integer(allow_none=True)
    first_illegal_step = fields.Dict(
        metadata={"description": "An illegal record's first refused command, rule and table"}
    )
    game_id = fields.UUID(
        metadata={"description": "A record imported before (409 already_imported): its game"}
    )
    illegal_entry = fields.Integer(
        allow_none=True,
        metadata={
            "description": "A correction refused because a later entry would be illegal: that "
            "entry's number as a change names it, to correct in the same correction (null: an "
            "entry the correction inserts)"
        },
    )


# --- requests -------------------------------------------------------------------------------------


class GameCreateSchema(Schema):
    seats = fields.List(
        fields.String(**NAME),
        required=True,
        validate=validate.Length(min=2, max=7),
        metadata={
            "description": "Seat names, clockwise: 1 to 40 printable characters each (no "
            "control or invisible formatting characters but the joiners of emoji sequences), "
            "that people can tell apart: different once spaces around them are trimmed, not "
            "only in letter case, and not looking the same (Unicode's confusables: 'Аna' with "
            "a Cyrillic 'А' is 'Ana')",
            "uniqueItems": True,
            "example": ["Ana", "Ben", "Cleo"],
        },
    )
    ruleset = fields.String(load_default=DEFAULT_PRESET, validate=validate.OneOf(list(PRESETS)))
    options = RulesetOptions(
        load_default=dict,
        metadata={
            "description": 'Ruleset options by name, e.g. {"allow_retrade": true}: GET '
            "/api/rulesets lists each preset's player counts and each option's values and "
            "default; an option or value it does not list is a 422"
        },
    )
    start_seat = integer(load_default=0, **SEAT_NUMBER)
    mode = fields.String(load_default=DIGITAL, validate=validate.OneOf(MODES))
    seed = integer(
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "Digital games: the seed of every shuffle (default: random)"},
    )
    deck = _beans(metadata={"description": "Digital games: an explicit deck order, top card first"})
    hands = fields.String(
        load_default=KNOWN_HANDS,
        validate=validate.OneOf(HANDS),
        metadata={
            "description": "Tabletop games: `known` (the host enters every card dealt and "
            "drawn) or `unknown` (the recorder does not see the hands: the deal and the draws "
            "into a hand are counted, and a card is named when the table shows it — planted, "
            "traded, discarded, or shown at the end). See docs/reference/modes.md on who may name cards"
        },
    )


def _command_types() -> str:
    """Each command type, the fields it takes and what it does (domain/rules/commands.py)."""
    lines = []
    for kind, command in COMMAND_TYPES.items():
        taken = [f"`{f.name}`" for f in dataclasses.fields(command) if f.name != "seat"]
        takes = f" ({', '.join(taken)})" if taken else ""
        lines.append(f"- `{kind}`{takes}: {' '.join((command.__doc__ or '').split())}")
    return "\n".join(lines)


class CommandSchema(Schema):
    class Meta:
        description = (
            "A command: its `type` and that type's fields (below). `seat` is the acting seat. "
            "Seats, fields and hand positions count from 0 (hand position 0 is the front card); "
            "messages for people count fields from 1. The commands the caller may give now are "
            "listed in `legal.commands` of the view, ready to send as they are; in a tabletop "
            "game the deal, reveals and draws are not listed there but announced in "
            "`legal.chance`: send that type for that seat, naming `count` cards (the deal: "
            "`hands`, as many cards as `legal.chance.hands` says for each seat).\n\n"
            + _command_types()
        )

    type = fields.String(required=True, validate=validate.OneOf(list(COMMAND_TYPES)))
    seat = integer(
        metadata={
            "description": "The acting seat; default: the caller's. The host of a tabletop game "
            "names the seat it acts for (a reveal or draw defaults to the active seat)"
        },
        **SEAT_NUMBER,
    )
    field = integer(
        metadata={"description": "plant, harvest: the acting seat's field, from 0"}, **INDEX
    )
    bean = fields.String(
        allow_none=True,
        validate=validate.OneOf(list(BEANS)),
        metadata={
            "description": "plant: the bean expected (null: the front card, when planting "
            "from the hand, or the card taken when the cards it is taken from are all one bean: "
            "the trade area, the duel's offered or drawn cards; required for a front card "
            "nobody has seen); "
            "discard-offered: the offered card discarded; discard-from-hand: the bean discarded "
            "(required for a card nobody has seen)"
        },
    )
    cards = _cards(
        allow_none=True,
        metadata={
            "description": "Tabletop reveal, draw: the cards turned up, in order, as many as "
            "`legal.chance.count` (null or absent in a digital game, where the deck decides, and "
            'for a draw in a game with unknown hands, which may also name them "?"); '
            'note-hand: the seat\'s hand, front first, a bean or "?" for each card; '
            "show-hand: the seat's hand at the end, every bean"
        },
    )
    hand_beans = _beans(
        allow_none=True,
        metadata={
            "description": "offer, accept: the beans of the hand cards given, in the order of "
            "`hand`: required for cards nobody has seen (a game with unknown hands), checked "
            "for known ones; an accept may leave them out when its offer's wants decide"
        },
    )
    to = integer(
        metadata={"description": "offer: the seat offered to"},
        error_messages={
            "invalid": "Not a valid integer: an offer goes to one seat, named by its number "
            "(a legal offer range's `to` lists the seats it may go to)."
        },
        **SEAT_NUMBER,
    )
    hand = fields.List(
        integer(**INDEX),
        metadata={
            "description": "offer, accept: the acting seat's hand cards given, by position "
            "(0 = the front card)"
        },
    )
    revealed = _beans(
        metadata={"description": "offer, accept: face-up cards of phase 2 given, by bean"}
    )
    trade_area = _beans(
        metadata={
            "description": "offer, accept: trade-area cards given, by bean (option `allow_retrade`)"
        }
    )
    wants = _beans(
        metadata={
            "description": "offer: the cards asked in return, one bean per card (a bean twice: "
            "two cards); empty: a donation"
        }
    )
    offer = integer(
        validate=validate.Range(min=1),
        metadata={"description": "accept, decline, withdraw: the offer's `id` (view `offers`)"},
    )
    position = integer(
        metadata={"description": "discard-from-hand: the hand position, 0 = the front card"},
        **INDEX,
    )
    hands = fields.List(
        _beans(),
        metadata={"description": "Tabletop deal: each seat's hand, by seat, front card first"},
    )
    changes = fields.List(
        fields.Nested(lambda: ChangeRequestSchema()),
        validate=validate.Length(min=1, max=100),
        metadata={
            "description": "correct: the changes, applied together; each replaces, deletes or "
            "inserts (before) one entry, numbered from 0 in the game as it stands (GET "
            "/api/games/{game_id}/entries)"
        },
    )
    expected_version = integer(
        validate=validate.Range(min=1),
        load_only=True,
        metadata={
            "description": "Refuse with 412 unless the game is at this version (or If-Match)"
        },
    )


class ChangeRequestSchema(Schema):
    class Meta:
        description = "One change of a correction"

    entry = integer(required=True, validate=validate.Range(min=0, max=100_000))
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    command = fields.Nested(
        lambda: CommandSchema(exclude=("expected_version", "changes")),
        allow_none=True,
        metadata={"description": "replace, insert: the entry's command (delete: none)"},
    )


KEY_FORMAT = (
    "A key is 1 to 128 visible ASCII characters other than the comma (a UUID, say); send "
    "one Idempotency-Key header only."
)
KEY_SCHEMA = {"type": "string", "pattern": "^[!-+\\--~]{1,128}$"}

COMMAND_HEADERS = [
    {
        "in": "header",
        "name": "If-Match",
        "required": False,
        "description": 'The game version the command is based on, e.g. "12"; 412 if the game '
        'has moved on ("*": any version, as without the header).',
        "schema": {
            "type": "string",
            "pattern": '^(\\*|(W/)?"(0|[1-9][0-9]{0,11})"|0|[1-9][0-9]{0,11})$',
        },
    },
    {
        "in": "header",
        "name": "Idempotency-Key",
        "required": False,
        "description": "Makes a retry safe: the same key and body get the first answer again "
        "(with `Idempotent-Replayed: true`) and store nothing new; the same key with another "
        "body or another expected version (`If-Match` or `expected_version`) is refused (422). "
        "The key is stored in the command's own transaction, with its events or, if it was "
        "refused, with its answer: whichever attempt stores first decides the key, so a retry "
        "sent while the first request still runs, or after its server stopped mid-request, "
        "gets the answer of the command that was stored (rebuilt from the store) or the refusal "
        "that was kept, never a second copy and never a 409. Answers are kept with the game. "
        + KEY_FORMAT,
        "schema": KEY_SCHEMA,
    },
    {
        "in": "header",
        "name": "Prefer",
        "required": False,
        "description": "`return=minimal`: the answer leaves out the caller's view (`view`), "
        "for a client that follows the game otherwise (the live stream, the event feed) or "
        "only records it; its events, version and position are there as always, and the "
        "answer says `Preference-Applied: return=minimal`. `return=representation`, or no "
        "`return` preference, gives the view (RFC 7240; other preferences are ignored).",
        "schema": {"type": "string"},
    },
]
"""Request headers of a command (read by the view itself, documented here)."""

RECORD_BODY_HEADERS = [
    {
        "in": "header",
        "name": "Content-Encoding",
        "required": False,
        "description": "`gzip` to send the record gzipped (records compress about tenfold). "
        f"The body may be up to {RECORD_BYTES:,} bytes as sent, and as many once gunzipped "
        "(413 beyond either: a body is not gunzipped past the limit); a game within the "
        "service's limits (docs/reference/http-api.md) has a record well under it.",
        "schema": {"type": "string", "enum": ["gzip", "identity"]},
    }
]
"""The headers of the routes that take a record (`takes_records` in api/errors.py)."""

CREATION_HEADERS = [
    {
        "in": "header",
        "name": "Idempotency-Key",
        "required": False,
        "description": "Makes a retry safe: the same key and body get the first answer again "
        "(with `Idempotent-Replayed: true`): the same game and the same tokens, and no other "
        "game is created. The same key with another body is refused (422), and while the first "
        "request runs, 409 (`idempotency_key_in_flight`). The key is stored with the new game's "
        "events, so even a retry after the server stopped mid-request creates the game at most "
        "once: after 30 seconds unanswered (by default: the server's "
        "`BOHNANZA_IDEMPOTENCY_IN_FLIGHT_SECONDS`), the retry gets the answer rebuilt from what "
        "was stored, with the tokens the first request chose, or the game is created then. The "
        "answer, its tokens in it, is kept for 24 hours (by default: the server's "
        "`BOHNANZA_IDEMPOTENCY_ANSWERS_KEPT_HOURS`); later, the key still refuses another body, "
        "and the same body is a 410 (`idempotency_answer_gone`) if it created its game, or runs "
        "again if it was refused. Whoever sends the same key and body within those 24 hours "
        "gets the tokens, and nothing else ties a retry to its first request (a fork's key also "
        "covers the caller's token, if one was sent): use a random key. Keys of each operation "
        "are its own (a fork's, the forked game's). " + KEY_FORMAT,
        "schema": KEY_SCHEMA,
    },
]
"""Request headers of the operations that create a game (read by `created_once`)."""

IDEMPOTENT_REPLAYED = {
    "description": "true: the answer to an earlier request with this Idempotency-Key, "
    "as it was stored or rebuilt from what that request stored",
    "schema": {"type": "string", "enum": ["true"]},
}

COMMAND_RESPONSE_HEADERS = {
    "ETag": {"description": "The game's version after the command", "schema": {"type": "string"}},
    "Idempotent-Replayed": IDEMPOTENT_REPLAYED,
    "Preference-Applied": {
        "description": "`return=minimal` when the request said `Prefer: return=minimal`: the "
        "answer has no `view`",
        "schema": {"type": "string", "enum": ["return=minimal"]},
    },
}

CREATED_RESPONSE_HEADERS = {"Idempotent-Replayed": IDEMPOTENT_REPLAYED}


AFTER_POSITION = {
    "validate": validate.Range(min=0),
    "metadata": {
        "description": "Read your writes: wait until the read models have seen this store "
        "position (a write's `position`), up to 5 seconds; then 503 `read_models_behind`, "
        "to retry. A position beyond the store's latest is a 422 at once"
    },
}


AUDITOR_ONLY = (
    "Must be 'auditor' (every card). A seat's view is the one its token opens: send "
    "'Authorization: Bearer <the seat's token>' without a perspective."
)


def perspective_field() -> fields.String:
    """The `perspective` query parameter: the auditor's (a seat's is its token's)."""
    return fields.String(
        validate=validate.OneOf(["auditor"], error=AUDITOR_ONLY),
        metadata={
            "description": "auditor: every card (hands, the draw pile's order, the seed). Open "
            "to everyone once the game is over; before, only with the server's auditor secret "
            "(X-Auditor-Token). A seat's view is the one its token opens"
        },
    )


class ViewQuerySchema(Schema):
    perspective = perspective_field()
    seat = QueryInteger(
        metadata={
            "description": "Ask for a seat's view: that seat's token may, and the host's in a "
            "tabletop game (the host sees every hand there); in a digital game, 403 for the host"
        },
        **SEAT_NUMBER,
    )


class EventsQuerySchema(Schema):
    after = QueryInteger(load_default=0, validate=validate.Range(min=0))
    limit = QueryInteger(load_default=100, validate=validate.Range(min=1, max=500))


def _page(items: str, first: str) -> dict[str, QueryInteger]:
    """A page's `limit` and `offset` query fields, for a list of `items`, `first` first."""
    return {
        "limit": QueryInteger(
            load_default=100,
            validate=validate.Range(min=1, max=500),
            metadata={"description": f"At most this many {items} in the page"},
        ),
        "offset": QueryInteger(
            load_default=0,
            validate=validate.Range(min=0),
            metadata={"description": f"Skip this many {items} ({first}): a page's next_offset"},
        ),
    }


class GamesQuerySchema(Schema.from_dict(_page("games", "the newest first"))):  # type: ignore[misc]
    cursor = fields.String(
        validate=validate.Length(min=1, max=200),
        metadata={
            "description": "Start after the game a page's next_cursor names (instead of an "
            "offset): a deep page costs what the first does"
        },
    )
    status = fields.String(validate=validate.OneOf(STATUSES))
    player = fields.String(**NAME)
    ruleset = fields.String(validate=validate.OneOf(list(PRESETS)))
    after_position = QueryInteger(**AFTER_POSITION)


class LeaderboardQuerySchema(Schema.from_dict(_page("standings", "the best first"))):  # type: ignore[misc]
    ruleset = fields.String(validate=validate.OneOf(list(PRESETS)))
    players = QueryInteger(validate=validate.Range(min=2, max=7))
    name = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "Only players whose names start with this (case counts)"},
    )
    after_position = QueryInteger(**AFTER_POSITION)


class PositionQuerySchema(Schema):
    after_position = QueryInteger(**AFTER_POSITION)


# --- responses ------------------------------------------------------------------------------------


PHASE_TEXT = fields.String(
    required=True,
    metadata={
        "description": "Where the turn stands, in the rulebook's words (RULES §5; §11.2 for the "
        'duel\'s steps), e.g. "phase 2, trading"',
        "example": "phase 2, trading",
    },
)

WRITE_POSITION = fields.Integer(
    required=True,
    allow_none=True,
    metadata={
        "description": "The store-wide position of the last event written (not the game's "
        "version): pass it as `after_position` to read the read models with this write in"
    },
)


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True)


class GameCreatedSchema(Schema):
    game_id = fields.UUID(required=True)
    version = fields.Integer(required=True)
    position = WRITE_POSITION
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    host_token = fields.String(required=True)
    ruleset = fields.Dict(required=True, metadata={"description": "The fully resolved ruleset"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class ResultSchema(Schema):
    scores = fields.List(fields.Integer(), required=True)
    hand_sizes = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    decided_by = fields.String(required=True, allow_none=True)


class GameSummarySchema(Schema):
    game_id = fields.UUID(required=True)
    ruleset = fields.String(required=True)
    players = fields.Integer(required=True)
    mode = fields.String(required=True)
    sandbox = fields.Boolean(
        required=True,
        metadata={"description": "A what-if fork of another game: not counted in the leaderboard"},
    )
    seats = fields.List(fields.String(), required=True)
    start_seat = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    phase = fields.String(required=True, validate=validate.OneOf([str(p) for p in Phase]))
    phase_text = PHASE_TEXT
    turn = fields.Integer(required=True)
    active_seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    started_at = fields.DateTime(required=True)
    result = fields.Nested(ResultSchema, required=True, allow_none=True)


class GameListItemSchema(Schema):
    game_id = fields.UUID(required=True)
    ruleset = fields.String(required=True)
    players = fields.Integer(required=True)
    mode = fields.String(required=True)
    sandbox = fields.Boolean(
        required=True,
        metadata={"description": "A what-if fork of another game: not counted in the leaderboard"},
    )
    duplicate_of = fields.UUID(
        required=True,
        allow_none=True,
        metadata={
            "description": "An earlier game with the very same facts (this one is a copy, e.g. an "
            "import of its record): the leaderboard counts that one only"
        },
    )
    seats = fields.List(fields.String(), required=True)
    status = fields.String(required=True)
    started_at = fields.DateTime(required=True)
    ended_at = fields.DateTime(required=True, allow_none=True)
    turns = fields.Integer(required=True)
    winners = fields.List(fields.String(), required=True)
    decided_by = fields.String(required=True, allow_none=True)
    scores = fields.List(
        fields.Integer(allow_none=True),
        required=True,
        metadata={
            "description": "Each seat's coins, by seat (its final score once the game has "
            "ended); null while a secret treasury (coin_counts_visible false) keeps them hidden"
        },
    )


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameListItemSchema), required=True)
    total = fields.Integer(required=True, metadata={"description": "Games the filters give"})
    next_offset = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The offset of the next page; null on the last page (and when "
            "paging by cursor)"
        },
    )
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The cursor of the next page; null on the last page"},
    )


class FieldViewSchema(Schema):
    bean = fields.String(required=True, allow_none=True)
    count = fields.Integer(required=True)


class SeatViewSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    hand = fields.List(
        fields.String(allow_none=True),
        required=True,
        allow_none=True,
        metadata={
            "description": "Front card first; null when the viewer may not see it. In a game "
            "with unknown hands a seat sees its own hand with null for each card it has not "
            "noted (note-hand)"
        },
    )
    hand_piles = fields.List(
        fields.Integer(allow_none=True),
        metadata={
            "description": "A game with unknown hands: for each hand card, the draw pile it came "
            "from (0: the deck; n: the pile the n-th reshuffle made), null for a known card"
        },
    )
    hand_size = fields.Integer(required=True)
    fields_ = fields.List(
        fields.Nested(FieldViewSchema), required=True, attribute="fields", data_key="fields"
    )
    trade_area = fields.List(fields.String(), required=True)
    coins = fields.Integer(required=True, allow_none=True)
    bought_third_field = fields.Boolean(required=True)


class OfferViewSchema(Schema):
    id = fields.Integer(required=True)
    proposer = fields.Integer(required=True)
    to = fields.Integer(required=True)
    gives = fields.List(fields.String(), required=True)
    gives_from_hand = fields.List(fields.Integer(), required=True)
    gives_revealed = fields.List(fields.String(), required=True)
    gives_from_trade_area = fields.List(fields.String(), required=True)
    wants = fields.List(fields.String(), required=True)


class OfferRangeSchema(Schema):
    """The offers `seat` may make now: to these seats, any non-empty mix of these hand positions
    and cards, for any of `wants`."""

    seat = fields.Integer(required=True, metadata={"description": "The seat that would offer"})
    to = fields.List(fields.Integer(), required=True)
    hand = fields.List(fields.Integer(), required=True)
    revealed = fields.List(fields.String(), required=True)
    trade_area = fields.List(fields.String(), required=True)
    wants = fields.List(fields.String(), required=True)
    hand_beans = fields.List(
        fields.List(fields.String()),
        required=True,
        allow_none=True,
        metadata={
            "description": "A game with unknown hands: the beans each hand card may be (an "
            "offer names them in `hand_beans`); null otherwise"
        },
    )


class ChanceStepSchema(Schema):
    class Meta:
        description = (
            "The cards a tabletop game is waiting for: send a command of this `type` for this "
            "`seat` naming `count` cards in `cards` (the deal: `hands`). A reveal announced "
            "while the active seat may still plant a second card also ends its planting "
            "(RULES §5.1.3, §5.2)."
        )

    type = fields.String(
        required=True,
        validate=validate.OneOf(["deal", "reveal", "draw"]),
        metadata={"example": "reveal"},
    )
    seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Whose step (none for the deal)"}
    )
    count = fields.Integer(
        required=True,
        metadata={
            "description": "Cards to name (the deal: every seat's hand in all). What the rules "
            "take, which may be more than the draw pile holds: when it runs out mid-draw the "
            "discard pile is shuffled into a new one (RULES §10.1) and the same command names "
            "the rest of the cards from it"
        },
    )
    hands = fields.List(
        fields.Integer(),
        required=True,
        allow_none=True,
        metadata={"description": "The deal: how many cards each seat is dealt, by seat"},
    )


class AsSent(fields.Raw):
    """A value the API builds already in its final form, dumped as it is (no schema applied on
    the way out, for speed) and documented as the schema component `documented_as`."""

    def __init__(self, documented_as: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.documented_as = documented_as


class LegalSchema(Schema):
    commands = fields.List(
        AsSent("Command"),
        required=True,
        metadata={"description": "The commands the caller may give now, each ready to send"},
    )
    offer = fields.Nested(
        OfferRangeSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The caller's own offer range, if it may offer now"},
    )
    offers = fields.List(
        fields.Nested(OfferRangeSchema),
        required=True,
        metadata={
            "description": "Every offer range the caller may enter: a seat's own; for the host "
            "of a tabletop game, each seat's"
        },
    )
    chance = fields.Nested(
        ChanceStepSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Tabletop games: the cards the table is waiting for, if any"},
    )


class PileSchema(Schema):
    size = fields.Integer(required=True)
    top = fields.String(allow_none=True)
    cards = fields.List(
        fields.String(),
        metadata={
            "description": "The discard pile's cards where they may be seen; the draw pile's "
            "for the auditor (in order) and for the host of a tabletop game (the cards no one "
            "has seen yet: what a chance step may name)"
        },
    )


class UnseenPileSchema(Schema):
    pile = fields.Integer(
        required=True, metadata={"description": "0: the deck; n: the n-th reshuffle's pile"}
    )
    beans = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": "How many cards of each bean this pile holds that nobody has seen "
            "yet: what its unseen cards may be (a bean none of them may be is left out)"
        },
    )
    in_draw_pile = fields.Integer(required=True)
    in_hands = fields.Integer(required=True)


class ViewerSchema(Schema):
    kind = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True)


class ViewSchema(Schema):
    viewer = fields.Nested(ViewerSchema, required=True)
    ruleset = fields.String(required=True)
    players = fields.Integer(required=True)
    mode = fields.String(required=True)
    phase = fields.String(required=True)
    phase_text = PHASE_TEXT
    turn = fields.Integer(required=True)
    active_seat = fields.Integer(required=True)
    start_seat = fields.Integer(required=True)
    planted_this_turn = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    draw_pile = fields.Nested(PileSchema, required=True)
    discard_pile = fields.Nested(PileSchema, required=True)
    revealed = fields.List(fields.String(), required=True)
    offers = fields.List(fields.Nested(OfferViewSchema), required=True)
    duel_offer = fields.List(fields.String(), required=True)
    removed_from_game = fields.Integer(required=True)
    exhaustions = fields.Integer(required=True)
    game_ends_on_exhaustion = fields.Integer(required=True)
    end_triggered = fields.Boolean(required=True)
    result = fields.Nested(ResultSchema, required=True, allow_none=True)
    seed = fields.Integer(allow_none=True)
    legal = fields.Nested(LegalSchema)
    version = fields.Integer(required=True)
    hands = fields.String(
        validate=validate.OneOf(["unknown"]),
        metadata={"description": "Present in a game with unknown hands"},
    )
    unseen = fields.List(
        fields.Nested(UnseenPileSchema),
        metadata={
            "description": "A game with unknown hands: for each draw pile it has had, the "
            "beans nobody has seen yet and where those cards are (public)"
        },
    )


EVENT_TYPE = fields.String(
    required=True,
    validate=validate.OneOf(list(EVENT_TYPES)),
    metadata={"description": "The fact's type (domain/rules/events.py)"},
)
EVENT_PAYLOAD = fields.Dict(
    required=True,
    metadata={
        "description": "The fact's fields, as the caller may know them: a card the caller may "
        f"not know is {UNKNOWN!r} (another seat's draw or dealt hand, the deck, a reshuffle), "
        "and an offer's hand positions are left out (`hand: []`) for all but the seat that "
        "offers; once an offer is accepted, the positions its cards left are public, as the "
        "cards change hands in the open"
    },
)


class FeedItemSchema(Schema):
    position = fields.Integer(
        required=True,
        metadata={"description": "The fact's step in this game: 1 = GameStarted (the version)"},
    )
    type = EVENT_TYPE
    event = EVENT_PAYLOAD
    summary = fields.String(
        required=True, metadata={"description": "The fact in words, as the caller saw it"}
    )


class EventPageSchema(Schema):
    items = fields.List(fields.Nested(FeedItemSchema), required=True)
    next_after = fields.Integer(required=True, allow_none=True)
    version = fields.Integer(required=True)


class CommandResultSchema(Schema):
    game_id = fields.UUID(required=True)
    version = fields.Integer(required=True)
    position = WRITE_POSITION
    events = fields.List(fields.Nested(FeedItemSchema), required=True)
    view = fields.Nested(
        ViewSchema,
        metadata={
            "description": "The caller's view at `version`; left out when the request said "
            "`Prefer: return=minimal`"
        },
    )


class SeatScoreSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    coins = fields.Integer(required=True, allow_none=True)
    coins_earned = fields.Integer(required=True, allow_none=True)
    harvests = fields.Integer(required=True)
    trades = fields.Integer(required=True)
    donations = fields.Integer(required=True, metadata={"description": "Gave cards, got none"})
    donations_received = fields.Integer(required=True)
    offers_made = fields.Integer(required=True)
    offers_received = fields.Integer(required=True)
    accepted = fields.Integer(
        required=True, metadata={"description": "Offers made to this seat that it accepted"}
    )
    declined = fields.Integer(required=True)
    planted = fields.Integer(required=True)
    winner = fields.Boolean(required=True)


class ScoreboardSchema(Schema):
    game = fields.Nested(GameSummarySchema, required=True)
    seats = fields.List(fields.Nested(SeatScoreSchema), required=True)


class WastedHarvestSchema(Schema):
    bean = fields.String(required=True)
    count = fields.Integer(required=True)
    coins = fields.Integer(required=True, allow_none=True)
    wasted = fields.Integer(
        required=True,
        metadata={"description": "Beans past the beanometer tier the harvest reached"},
    )


class SeatInsightsSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    offers_made = fields.Integer(required=True)
    offers_received = fields.Integer(required=True)
    offers_accepted = fields.Integer(
        required=True, metadata={"description": "Offers this seat made that were accepted"}
    )
    accepted = fields.Integer(
        required=True, metadata={"description": "Offers made to this seat that it accepted"}
    )
    declined = fields.Integer(required=True)
    withdrawn = fields.Integer(required=True)
    acceptance_rate = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Accepted / (accepted + declined); null if none was answered"},
    )
    trades = fields.Integer(required=True)
    donations_given = fields.Integer(required=True)
    donations_received = fields.Integer(required=True)
    cards_given = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    cards_got = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    harvests = fields.Integer(required=True)
    coins_earned = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "null while the caller may not see this seat's coins"},
    )
    coins_per_harvest = fields.Float(required=True, allow_none=True)
    wasted_harvests = fields.List(fields.Nested(WastedHarvestSchema), required=True)
    discarded_unplanted = fields.Integer(required=True)
    third_field_turn = fields.Integer(required=True, allow_none=True)


class LeadChangeSchema(Schema):
    turn = fields.Integer(
        required=True, metadata={"description": "The turn at whose end it changed; -1: the end"}
    )
    leaders = fields.List(fields.Integer(), required=True)
    coins = fields.Integer(required=True)


class GameInsightsSchema(Schema):
    over = fields.Boolean(required=True)
    seats = fields.List(fields.Nested(SeatInsightsSchema), required=True)
    traded_with = fields.List(
        fields.List(fields.Integer()),
        required=True,
        metadata={"description": "traded_with[a][b]: accepted offers between seats a and b"},
    )
    lead_changes = fields.List(
        fields.Nested(LeadChangeSchema),
        required=True,
        allow_none=True,
        metadata={"description": "null while the caller may not see every seat's coins"},
    )


class StandingSchema(Schema):
    name = fields.String(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True)
    average_score = fields.Float(required=True)
    best_score = fields.Integer(required=True)
    total_score = fields.Integer(required=True)
    harvests = fields.Integer(required=True)
    coins_earned = fields.Integer(required=True)
    coins_per_harvest = fields.Float(required=True, allow_none=True)
    accepted = fields.Integer(
        required=True, metadata={"description": "Offers made to the player that it accepted"}
    )
    declined = fields.Integer(required=True)
    acceptance_rate = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "accepted / (accepted + declined); null if none was answered"},
    )
    donations = fields.Integer(required=True, metadata={"description": "Gave cards, got none"})
    donations_received = fields.Integer(required=True)


class LeaderboardSchema(Schema):
    ruleset = fields.String(required=True, allow_none=True)
    players = fields.Integer(required=True, allow_none=True)
    name = fields.String(required=True, allow_none=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)
    next_offset = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The offset of the next page; null on the last page"},
    )


class OptionSchema(Schema):
    name = fields.String(required=True)
    description = fields.String(required=True)
    section = fields.String(required=True)
    values = fields.List(fields.Raw(), required=True)
    duel_only = fields.Boolean(required=True)
    is_list = fields.Boolean(required=True)


class PresetSchema(Schema):
    id = fields.String(required=True)
    description = fields.String(required=True)
    source = fields.String(required=True)
    player_counts = fields.List(fields.Integer(), required=True)


class RulesetsSchema(Schema):
    presets = fields.List(fields.Nested(PresetSchema), required=True)
    options = fields.List(fields.Nested(OptionSchema), required=True)


class HealthSchema(Schema):
    status = fields.String(required=True)
    position = fields.Integer(
        required=True, metadata={"description": "The store's latest position"}
    )
    read_models = fields.Integer(
        required=True,
        metadata={"description": "The position every read model has processed (the lowest)"},
    )
    read_models_behind = fields.Integer(
        required=True, metadata={"description": "position - read_models: the projector's lag"}
    )


# --- replays ------------------------------------------------------------------------------------


class PerspectiveQuerySchema(Schema):
    perspective = perspective_field()


class LiveQuerySchema(PerspectiveQuerySchema):
    after = QueryInteger(
        validate=validate.Range(min=0),
        metadata={
            "description": "The version the client has: the first event lists the steps after "
            "it (without it, none). A Last-Event-ID header takes its place"
        },
    )


class StepSchema(Schema):
    position = fields.Integer(required=True, metadata={"description": "1 = the game's start"})
    turn = fields.Integer(required=True)
    phase = fields.String(required=True)
    actor = fields.Integer(required=True, allow_none=True)
    kind = fields.String(required=True)
    summary = fields.String(
        required=True, metadata={"example": "T12 Ana harvests field 1 (6 Blue) → 2 coins"}
    )
    corrected = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The number of the correction (1 = the first) that changed or "
            "inserted this step's entry; null for a step as recorded"
        },
    )
    entry = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The entry (command, from 0) this step belongs to; null for the "
            "start, and (as recorded) for a correction"
        },
    )


class StepListSchema(Schema):
    as_ = fields.String(
        required=True,
        data_key="as",
        attribute="as",
        validate=validate.OneOf(["corrected", "recorded"]),
        metadata={"description": "Which game the steps are of (see `as` in the query)"},
    )
    corrections = fields.Integer(
        required=True, metadata={"description": "How many corrections the game has had"}
    )
    steps = fields.List(fields.Nested(StepSchema), required=True)
    turns = fields.List(fields.Integer(), required=True)
    over = fields.Boolean(required=True)
    open_to_all = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether every card is open to everyone (`perspective=auditor`, the "
            "record): the game is over, and so is every game it was forked from"
        },
    )


class EntrySchema(Schema):
    entry = fields.Integer(required=True, metadata={"description": "The entry's number, from 0"})
    command = AsSent(
        "Command",
        required=True,
        metadata={"description": "The command, as a correction would name it"},
    )
    text = fields.String(required=True, metadata={"example": "Ben plants Blue in field 2"})
    first_step = fields.Integer(required=True, metadata={"description": "Its first step"})
    last_step = fields.Integer(
        required=True, metadata={"description": "Its last step (what followed from it included)"}
    )
    corrected = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The correction that changed or inserted it (null: as entered)"},
    )


class EntryListSchema(Schema):
    class Meta:
        description = (
            "The entries of a tabletop game as corrected: every command, numbered from 0, as a "
            "correction names them. A seat's notes of its own hand show no cards."
        )

    entries = fields.List(fields.Nested(EntrySchema), required=True)
    version = fields.Integer(required=True)


class ChangeSchema(Schema):
    path = fields.String(required=True, metadata={"description": "JSON Pointer into the view"})
    before = fields.Raw(required=True, allow_none=True)
    after = fields.Raw(required=True, allow_none=True)


class AuthorSchema(Schema):
    role = fields.String(required=True, validate=validate.OneOf(["seat", "host", "guest"]))
    name = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True)


class NoteSchema(Schema):
    id = fields.Integer(
        required=True,
        metadata={
            "description": "The note's number (in its URL): drawn at random from 1 to 2^53 - 1, "
            "so it tells nothing of other notes (notes added before 1 Dec 2026 keep their "
            "numbers 1, 2, 3…)"
        },
    )
    game_id = fields.UUID(required=True)
    step = fields.Integer(required=True)
    author = fields.Nested(AuthorSchema, required=True)
    text = fields.String(required=True)
    glyph = fields.String(required=True, allow_none=True)
    visibility = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True)
    history = fields.List(fields.Dict(), required=True)


class StepEventSchema(Schema):
    type = EVENT_TYPE
    payload = EVENT_PAYLOAD


class StepDetailSchema(Schema):
    step = fields.Nested(StepSchema, required=True)
    summary = fields.String(required=True, metadata={"description": "The caller's own line"})
    event = fields.Nested(StepEventSchema, required=True)
    changes = fields.List(fields.Nested(ChangeSchema), required=True)
    view = fields.Nested(ViewSchema, required=True)
    notes = fields.List(fields.Nested(NoteSchema), required=True)


AS_QUERY = {
    "data_key": "as",
    "attribute": "as",
    "load_default": "corrected",
    "validate": validate.OneOf(["corrected", "recorded"]),
    "metadata": {
        "description": "A corrected tabletop game: `corrected` (default) steps through the game "
        "as corrected; `recorded` through what was entered, in order, each correction a step"
    },
}


class ReplayQuerySchema(PerspectiveQuerySchema):
    as_ = fields.String(**AS_QUERY)


def _spellings(kind: str) -> list[str]:
    """A kind of fact as the steps name it, in kebab case and in snake case."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", kind).lower().split()
    return [kind, "-".join(words), "_".join(words)]


KIND_SPELLINGS = [spelling for kind in EVENT_TYPES for spelling in _spellings(kind)]
"""The kinds of fact `/jump` takes (replays/steps.py reads each spelling as its kind)."""


class JumpQuerySchema(Schema):
    class Meta:
        description = "Give either `turn` or `kind` (with `direction` and `from`)."

    as_ = fields.String(**AS_QUERY)

    turn = QueryInteger(
        validate=validate.Range(min=0, max=10_000),
        metadata={"description": "The first step of this turn (not with `kind`)"},
    )
    kind = fields.String(
        validate=validate.OneOf(
            KIND_SPELLINGS,
            error="no kind of fact is called {input!r}; kinds: " + ", ".join(EVENT_TYPES),
        ),
        metadata={
            "description": "The next (previous) fact of this type (not with `turn`), as the "
            "steps name it (FieldHarvested) or in kebab or snake case (field-harvested, "
            "field_harvested)"
        },
    )
    direction = fields.String(load_default="next", validate=validate.OneOf(["next", "previous"]))
    from_ = QueryInteger(
        data_key="from",
        attribute="from",
        validate=validate.Range(min=0),
        metadata={"description": "The step to search from (default: either end)"},
    )

    @validates_schema
    def one_target(self, data: dict[str, Any], **_: Any) -> None:
        if ("turn" in data) == ("kind" in data):
            raise ValidationError("give either turn or kind", "_schema")


class JumpSchema(Schema):
    position = fields.Integer(required=True, allow_none=True)


class TimelinePointSchema(Schema):
    turn = fields.Integer(required=True)
    position = fields.Integer(required=True)
    coins = fields.List(fields.Integer(allow_none=True), required=True)


class TimelineSchema(Schema):
    seats = fields.List(fields.String(), required=True)
    points = fields.List(fields.Nested(TimelinePointSchema), required=True)


class NotesQuerySchema(PerspectiveQuerySchema):
    step = QueryInteger(validate=validate.Range(min=1))


GLYPH = fields.String(allow_none=True, validate=validate.OneOf(["!", "?", "!!", "??", "!?", "?!"]))
VISIBILITY = validate.OneOf(["author", "seat", "table", "public"])
NOTE_TEXT = validate.Length(min=1, max=4000)
"""A note's length; replays/annotations.py checks its characters, and the OpenAPI document
gives them as a pattern (api/openapi.py) on the fields this validates."""


class NoteCreateSchema(Schema):
    step = integer(required=True, validate=validate.Range(min=1))
    text = fields.String(required=True, validate=NOTE_TEXT)
    glyph = GLYPH
    visibility = fields.String(load_default="public", validate=VISIBILITY)
    seat = integer(allow_none=True, **SEAT_NUMBER)
    author = fields.String(
        **NAME,
        metadata={
            "description": "A guest's name (no token): public notes on ended games only. With "
            "a token the note is signed by the token's seat or host, and `author` is ignored"
        },
    )


class NoteEditSchema(Schema):
    MIN_PROPERTIES = 1  # documented as minProperties (api/openapi.py)

    text = fields.String(validate=NOTE_TEXT)
    glyph = GLYPH
    visibility = fields.String(validate=VISIBILITY)
    seat = integer(allow_none=True, **SEAT_NUMBER)

    @validates_schema
    def changes_something(self, data: dict[str, Any], **_: Any) -> None:
        if not data:
            raise ValidationError(
                "an edit names what to change: text, glyph, visibility or seat", "_schema"
            )


class NoteListSchema(Schema):
    notes = fields.List(fields.Nested(NoteSchema), required=True)


class ForkCreateSchema(Schema):
    step = integer(required=True, validate=validate.Range(min=1))


class ForkCreatedSchema(Schema):
    game_id = fields.UUID(required=True)
    parent = fields.UUID(required=True)
    step = fields.Integer(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    host_token = fields.String(required=True)


class ForkLinkSchema(Schema):
    game_id = fields.String(required=True)
    step = fields.Integer(required=True)


class LineageSchema(Schema):
    parent = fields.Nested(ForkLinkSchema, required=True, allow_none=True)
    forks = fields.List(fields.Nested(ForkLinkSchema), required=True)


class OutcomeSchema(Schema):
    game_id = fields.UUID(required=True)
    status = fields.String(required=True)
    scores = fields.List(
        fields.Integer(allow_none=True),
        required=True,
        metadata={
            "description": "coins by seat; null for a seat whose coins the caller may not see "
            "(a running game whose ruleset keeps treasuries secret)"
        },
    )
    winners = fields.List(fields.Integer(), required=True, allow_none=True)
    decided_by = fields.String(required=True, allow_none=True)


class ComparisonSchema(Schema):
    fork = fields.Nested(OutcomeSchema, required=True)
    parent = fields.Nested(OutcomeSchema, required=True)
    step = fields.Integer(required=True)
    same_outcome = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={"description": "null while the fork or its parent is still being played"},
    )


# --- records ------------------------------------------------------------------------------------


class BGStatsSchema(Schema):
    """A BG Stats import document (its fields as BG Stats writes its own export files)."""

    about = fields.String(required=True)
    players = fields.List(fields.Dict(), required=True)
    locations = fields.List(fields.Dict(), required=True)
    games = fields.List(fields.Dict(), required=True)
    plays = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "Each play: uuid (the game's id), gameRefId, locationRefId, playDate, "
            "durationMin, rounds (turns), board (the edition), comments, and playerScores "
            "(playerRefId, score, winner, startPlayer, rank, seatOrder, newPlayer)"
        },
    )


class ExportQuerySchema(Schema):
    place = fields.String(
        validate=[validate.Length(min=1, max=200), printable],
        metadata={"description": "Default: the place of the record the game was imported from"},
    )
    tags = fields.List(
        fields.String(validate=[validate.Length(min=1, max=60), printable]),
        metadata={"description": "Default: the tags of the record the game was imported from"},
    )


class RecordDocumentSchema(Schema):
    class Meta:
        description = (
            "A `bohnanza-record/1` or `/2` document. Its full JSON Schema is served at "
            "/api/records/schema.json; an import checks a document against it."
        )

    format = fields.String(required=True, metadata={"example": "bohnanza-record/1"})
    header = fields.Dict(required=True)
    chance = fields.Dict(allow_none=True)
    commands = fields.List(fields.Dict(), required=True)
    result = fields.Dict(allow_none=True)
    annotations = fields.List(fields.Dict())


class JsonSchemaSchema(Schema):
    class Meta:
        description = "A JSON Schema document"
        unknown = INCLUDE


class ImportedSchema(Schema):
    game_id = fields.UUID(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    host_token = fields.String(required=True)
    notes = fields.Integer(required=True, metadata={"description": "Annotations stored"})


class VerificationSchema(Schema):
    ruleset = fields.String(
        validate=validate.OneOf(list(PRESETS)),
        metadata={"description": "Default: the record's own ruleset"},
    )
    options = RulesetOptions(
        metadata={
            "description": "Options changed from the game's own (its other options stay); "
            "default: none changed"
        }
    )


class RecordVerificationSchema(VerificationSchema):
    record = fields.Nested(RecordDocumentSchema, required=True)


class ReportSchema(Schema):
    verdict = fields.String(required=True, validate=validate.OneOf(["legal", "illegal"]))
    ruleset = fields.Dict(required=True)
    mode = fields.String(required=True)
    commands = fields.Integer(required=True)
    first_illegal_step = fields.Dict(required=True, allow_none=True)
    recorded = fields.Dict(required=True, allow_none=True)
    result = fields.Dict(required=True, allow_none=True)
    same_outcome = fields.Boolean(required=True, allow_none=True)
    difference = fields.String(required=True, allow_none=True)
    notes = fields.List(fields.String(), required=True)
    unseen_cards = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "A legal game with unknown hands: how many of its cards nobody saw "
            "(`notes` says that an assignment of beans to them exists, checked on one: the "
            "game with those beans dealt and drawn re-decides as a game with known hands); null "
            "for any other game"
        },
    )


class ProblemSchema(Schema):
    position = fields.Integer(required=True)
    fact = fields.String(required=True)
    message = fields.String(required=True)


class AuditSchema(Schema):
    sound = fields.Boolean(required=True)
    problems = fields.List(fields.Nested(ProblemSchema), required=True)
