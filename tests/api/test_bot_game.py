"""A complete game played entirely over the API by bots, each seat deciding from its own view
(folded from its own redacted feed), and what every viewer was shown along the way: no other
seat's hand, no draw-pile order and no seed, except to an auditor once the game is over."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.bots import BOTS, Table
from domain.rules import events as ev
from domain.rules.commands import Command, Offer
from domain.rules.legal import legal_commands
from domain.rules.state import UNKNOWN, GameState
from projections.views import PUBLIC_VIEWER, Viewer

from .conftest import web_app
from .support import CreatedGame, Feed, create_game, documented_schema

pytestmark = pytest.mark.slow  # complete games played through the API

SEATS = ["Ana", "Ben", "Cleo", "Dan"]
SEED = 3
MAX_COMMANDS = 5_000
CHECK_EVERY = 40
AUDITOR_SECRET = "auditor-secret-for-tests"


class SeatViewTable(Table):
    """The bots' table, but each seat's bot sees only that seat's own view."""

    def next_command_seen_by(
        self, public: GameState, view_of: Callable[[int], GameState]
    ) -> Command:
        seats = list(range(len(public.players)))
        self.rng.shuffle(seats)
        seats.sort(key=lambda seat: self._priority(public, seat))
        for seat in seats:
            view = view_of(seat)
            legal = legal_commands(view, seat)
            if not legal:
                continue
            offers_made = self._offers[(view.turn, seat)]
            choice = self.bots[seat].choose(view, seat, legal, self.rng, offers_made)
            if choice is None:
                continue
            if isinstance(choice, Offer):
                self._offers[(view.turn, seat)] += 1
            return choice
        raise RuntimeError(f"no seat can act in phase {public.phase}")


@dataclass
class PlayedGame:
    """The game and everything each viewer was shown while it was played."""

    web: Flask
    client: FlaskClient
    game: CreatedGame
    commands: int = 0
    views: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Viewer name ("seat 0", "public", "host") → its views, taken every CHECK_EVERY commands."""
    answers: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Seat → every answer to a command it gave."""
    auditor_refusals: list[int] = field(default_factory=list)
    auditor_with_rights: list[dict[str, Any]] = field(default_factory=list)

    def viewers(self) -> dict[str, dict[str, str]]:
        seats = {f"seat {seat}": self.game.seat(seat) for seat in range(len(SEATS))}
        return {**seats, "public": {}, "host": self.game.host()}

    def feed(self, headers: dict[str, str]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            page = self.client.get(
                f"{self.game.url}/events", query_string={"after": after}, headers=headers
            ).get_json()
            items += page["items"]
            after = page["next_after"]
        return items


def _look(played: PlayedGame) -> None:
    for name, headers in played.viewers().items():
        view = played.client.get(f"{played.game.url}/view", headers=headers)
        played.views.setdefault(name, []).append(view.get_json())
    refused = played.client.get(
        f"{played.game.url}/view",
        query_string={"perspective": "auditor"},
        headers=played.game.seat(0),
    )
    played.auditor_refusals.append(refused.status_code)
    allowed = played.client.get(
        f"{played.game.url}/view",
        query_string={"perspective": "auditor"},
        headers={"X-Auditor-Token": AUDITOR_SECRET},
    )
    played.auditor_with_rights.append(allowed.get_json())


@pytest.fixture(scope="module")
def played() -> Iterator[PlayedGame]:
    """A four-seat greedy-bot game, played to its end over the API."""
    with web_app("memory://", AUDITOR_TOKEN=AUDITOR_SECRET) as web:
        client = web.test_client()
        game = create_game(client, seats=SEATS, seed=SEED)
        played = PlayedGame(web, client, game)
        feeds = {seat: Feed(Viewer.of_seat(seat), game.seat(seat)) for seat in range(len(SEATS))}
        public = Feed(PUBLIC_VIEWER, {})
        table = SeatViewTable([BOTS["greedy"]() for _ in SEATS], random.Random(SEED))
        while not public.refresh(client, game).is_over:
            assert played.commands < MAX_COMMANDS, "the game did not end"
            if played.commands % CHECK_EVERY == 0:
                _look(played)
            choice = table.next_command_seen_by(
                public.fold.state, lambda seat: feeds[seat].refresh(client, game)
            )
            body = choice.to_dict()
            seat = body.pop("seat")
            response = client.post(f"{game.url}/commands", json=body, headers=game.seat(seat))
            assert response.status_code == 200, (body, response.get_json())
            played.answers.setdefault(seat, []).append(response.get_json())
            played.commands += 1
        _look(played)
        yield played


def _game_facts(played: PlayedGame) -> list[ev.Event]:
    return played.web.extensions["bohnanza"].get().app.facts(uuid.UUID(played.game.id))


def test_a_bot_game_played_over_the_api_ends_with_the_scores_of_its_facts(
    played: PlayedGame,
) -> None:
    ended = _game_facts(played)[-1]
    assert isinstance(ended, ev.GameEnded)

    summary = played.client.get(played.game.url).get_json()
    board = played.client.get(f"{played.game.url}/scoreboard").get_json()

    assert played.commands > 100
    assert summary["status"] == "ended"
    assert summary["result"]["scores"] == list(ended.scores)
    assert summary["result"]["winners"] == list(ended.winners)
    assert [seat["coins"] for seat in board["seats"]] == list(ended.scores)
    assert [seat["winner"] for seat in board["seats"]] == [
        seat in ended.winners for seat in range(len(SEATS))
    ]


def test_every_answer_and_view_matches_its_documented_schema(played: PlayedGame) -> None:
    answer_schema = documented_schema(played.client, "CommandResult")
    view_schema = documented_schema(played.client, "View")

    for answers in played.answers.values():
        for answer in answers:
            answer_schema.validate(answer)
    for views in played.views.values():
        for view in views:
            view_schema.validate(view)


def test_every_seat_gave_commands_with_its_own_token(played: PlayedGame) -> None:
    assert sorted(played.answers) == list(range(len(SEATS)))


def shown_hands(view: dict[str, Any]) -> list[bool]:
    """Per seat, whether the view shows its cards (an empty hand hides nothing)."""
    return [seat["hand"] is not None and seat["hand_size"] > 0 for seat in view["seats"]]


def test_a_seat_never_sees_another_seats_hand_in_its_views(played: PlayedGame) -> None:
    for seat in range(len(SEATS)):
        for view in played.views[f"seat {seat}"]:
            assert view["seats"][seat]["hand"] is not None
            shown = shown_hands(view)
            assert shown[:seat] + shown[seat + 1 :] == [False] * (len(SEATS) - 1)


def test_the_public_and_a_digital_games_host_see_no_hand(played: PlayedGame) -> None:
    for name in ("public", "host"):
        for view in played.views[name]:
            assert shown_hands(view) == [False] * len(SEATS)


def test_no_view_shows_the_draw_pile_order_or_the_seed(played: PlayedGame) -> None:
    for views in played.views.values():
        for view in views:
            assert "cards" not in view["draw_pile"]
            assert view.get("seed") is None


def _assert_feed_hides_secrets(items: list[dict[str, Any]], seat: int | None) -> None:
    """A feed (or a command's events) as `seat` (None: no seat) may see it."""
    for item in items:
        event = item["event"]
        match item["type"]:
            case "GameStarted":
                assert event["seed"] is None
                assert set(event["deck"]) == {UNKNOWN}
            case "CardsDealt":
                for owner, hand in enumerate(event["hands"]):
                    assert (set(hand) == {UNKNOWN}) == (owner != seat)
            case "CardDrawn" if event["seat"] != seat:
                assert event["bean"] == UNKNOWN
            case "TradeOffered" if event["proposer"] != seat:
                assert event["hand"] == []
            case "DiscardsReshuffled":
                assert set(event["order"]) <= {UNKNOWN}


def test_each_viewers_feed_hides_what_it_may_not_know(played: PlayedGame) -> None:
    for name, headers in played.viewers().items():
        seat = int(name.split()[1]) if name.startswith("seat") else None
        _assert_feed_hides_secrets(played.feed(headers), seat)


def test_a_seat_learns_its_own_draws_from_its_feed(played: PlayedGame) -> None:
    items = played.feed(played.game.seat(1))

    own = [
        i["event"]["bean"] for i in items if i["type"] == "CardDrawn" and i["event"]["seat"] == 1
    ]
    assert own
    assert UNKNOWN not in own


def test_command_answers_hide_other_seats_hands_draws_and_the_seed(played: PlayedGame) -> None:
    for seat, answers in played.answers.items():
        for answer in answers:
            _assert_feed_hides_secrets(answer["events"], seat)
            view = answer["view"]
            shown = shown_hands(view)
            assert shown[:seat] + shown[seat + 1 :] == [False] * (len(SEATS) - 1)
            assert "cards" not in view["draw_pile"]
            assert view.get("seed") is None


def test_the_auditors_view_is_refused_until_the_game_is_over(played: PlayedGame) -> None:
    assert played.auditor_refusals[:-1] == [403] * (len(played.auditor_refusals) - 1)
    assert played.auditor_refusals[-1] == 200


def test_auditor_rights_show_everything_while_the_game_runs(played: PlayedGame) -> None:
    running = played.auditor_with_rights[0]

    assert running["viewer"] == {"kind": "auditor", "seat": None}
    assert running["seed"] == SEED
    assert len(running["draw_pile"]["cards"]) == running["draw_pile"]["size"]
    assert all(seat["hand"] is not None for seat in running["seats"])


def test_after_the_end_anyone_may_see_the_auditors_view(played: PlayedGame) -> None:
    view = played.client.get(
        f"{played.game.url}/view", query_string={"perspective": "auditor"}
    ).get_json()

    assert view["viewer"]["kind"] == "auditor"
    assert view["seed"] == SEED
    assert all(seat["hand"] is not None for seat in view["seats"])


def test_a_finished_games_seat_view_still_hides_other_hands(played: PlayedGame) -> None:
    view = played.client.get(f"{played.game.url}/view", headers=played.game.seat(2)).get_json()

    assert view["seats"][2]["hand"] is not None
    assert [shown_hands(view)[seat] for seat in (0, 1, 3)] == [False] * 3
    assert "legal" not in view
