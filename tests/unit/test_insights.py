"""A game's numbers (`projections.insights`): they agree with the facts counted directly, and tell a
viewer nothing the table does not show it."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.bots import simulate
from domain.rules import events as ev
from projections.insights import Numbers, insights
from projections.views import AUDITOR_VIEWER, PUBLIC_VIEWER, Viewer

GAMES = [
    ("rio-grande", 2, "random", 1),
    ("rio-grande", 4, "greedy", 3),
    ("rio-grande", 5, "random", 4),
    ("amigo", 3, "greedy", 5),
    ("amigo-1997", 4, "random", 6),
]


@pytest.mark.parametrize(("preset", "players", "bot", "seed"), GAMES)
def test_the_numbers_of_a_bot_game_agree_with_its_facts_counted_directly(
    preset: str, players: int, bot: str, seed: int
) -> None:
    facts = simulate(preset, players, bot=bot, seed=seed)
    found = insights(facts, PUBLIC_VIEWER)
    offered = [fact for fact in facts if isinstance(fact, ev.TradeOffered)]
    taken = [fact for fact in facts if isinstance(fact, ev.TradeAccepted)]
    harvests = [fact for fact in facts if isinstance(fact, ev.FieldHarvested)]
    bought = [fact for fact in facts if isinstance(fact, ev.ThirdFieldBought)]
    ended = facts[-1]
    assert isinstance(ended, ev.GameEnded)

    assert found.over
    for seat in found.seats:
        me = seat.seat
        assert seat.offers_made == sum(o.proposer == me for o in offered)
        assert seat.offers_received == sum(o.to == me for o in offered)
        assert seat.offers_accepted == sum(t.proposer == me for t in taken)
        assert seat.accepted == sum(t.acceptor == me for t in taken)
        declines = [f for f in facts if isinstance(f, ev.TradeDeclined) and f.seat == me]
        assert seat.declined == len(declines)
        given = Counter(
            bean
            for t in taken
            for bean in (t.to_acceptor if t.proposer == me else t.to_proposer)
            if me in (t.proposer, t.acceptor)
        )
        assert seat.cards_given == dict(given)
        assert seat.harvests == sum(h.seat == me for h in harvests)
        assert seat.coins_earned == sum(h.coins for h in harvests if h.seat == me)
        paid = sum(len(b.coins) for b in bought if b.seat == me)
        assert seat.coins_earned - paid == ended.scores[me]
    gifts = sum(seat.donations_given for seat in found.seats)
    assert gifts == sum(not (t.to_acceptor and t.to_proposer) for t in taken)
    matrix = found.traded_with
    assert all(matrix[a][b] == matrix[b][a] for a in range(players) for b in range(players))
    assert sum(map(sum, matrix)) == 2 * len(taken)
    assert found.lead_changes is not None
    assert (
        found.lead_changes[-1]["leaders"]
        == sorted(seat for seat, score in enumerate(ended.scores) if score == max(ended.scores))
        or max(ended.scores) == 0
    )


@pytest.mark.parametrize(
    ("bean", "count", "wasted"),
    [("blue", 4, None), ("blue", 5, 1), ("blue", 6, None), ("blue", 11, 1), ("chili", 1, 1)],
    ids=["at a tier", "one past it", "at the next", "past the top", "under the first"],
)
def test_a_harvest_past_its_beanometer_tier_is_listed_with_the_beans_it_wasted(
    bean: str, count: int, wasted: int | None
) -> None:
    numbers = Numbers.start(simulate("rio-grande", 4, seed=1)[0])  # type: ignore[arg-type]
    numbers.apply(ev.FieldHarvested(0, 0, bean, count, 0, False))

    listed = [harvest["wasted"] for harvest in numbers.seats[0].wasted_harvests]
    assert listed == ([] if wasted is None else [wasted])


@pytest.mark.parametrize("cut", [1, 2, 3, 4], ids=["a fifth", "two fifths", "three", "four"])
def test_numbers_kept_as_a_row_and_counted_on_are_the_numbers_counted_at_once(cut: int) -> None:
    facts = simulate("amigo", 3, bot="greedy", seed=7)
    at = len(facts) * cut // 5

    kept = Numbers.from_row(json.loads(json.dumps(Numbers.count(facts[:at]).to_row())))
    for fact in facts[at:]:
        kept.apply(fact)

    assert kept == Numbers.count(facts)


def test_while_a_game_with_secret_coins_runs_no_viewer_learns_anothers_coins_or_the_lead() -> None:
    facts = simulate("rio-grande", 4, seed=3, options={"coin_counts_visible": False})
    running = facts[: len(facts) // 2]
    assert any(isinstance(fact, ev.FieldHarvested) and fact.coins for fact in running)

    public = insights(running, PUBLIC_VIEWER)
    assert [seat.coins_earned for seat in public.seats] == [None] * 4
    assert public.lead_changes is None
    ben = insights(running, Viewer.of_seat(1))
    assert [seat.coins_earned is None for seat in ben.seats] == [True, False, True, True]
    assert ben.lead_changes is None
    assert all(seat.coins_earned is not None for seat in insights(facts, PUBLIC_VIEWER).seats)
    assert insights(running, AUDITOR_VIEWER).lead_changes is not None


def test_bohnanza_stats_prints_each_seats_numbers_and_who_traded_with_whom(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/stats.sqlite3"
    runner = CliRunner()
    played = runner.invoke(
        main, ["--database-url", url, "play", "--players", "Ana,Ben,Cleo", "--seed", "5", "--quiet"]
    )
    assert played.exit_code == 0, played.output
    game = played.output.split()[1]

    shown = runner.invoke(main, ["--database-url", url, "stats", game])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].split()[:2] == ["SEAT", "OFFERED/TAKEN/WITHDRAWN"]
    assert [line.split()[0] for line in lines[1:4]] == ["Ana", "Ben", "Cleo"]
    assert any(line.startswith("TRADED WITH") for line in lines)
    assert lines[-1].startswith("The lead: ")
    document = json.loads(
        runner.invoke(main, ["--database-url", url, "stats", game, "--json"]).output
    )
    assert [seat["name"] for seat in document["seats"]] == ["Ana", "Ben", "Cleo"]


def test_bohnanza_leaderboard_prints_each_players_record_with_its_trading(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/board.sqlite3"
    runner = CliRunner()
    for seed in ("5", "6"):
        played = runner.invoke(
            main, ["--database-url", url, "play", "--players", "Ana,Ben,Cleo", "--seed", seed]
        )
        assert played.exit_code == 0, played.output

    shown = runner.invoke(main, ["--database-url", url, "leaderboard"])

    assert shown.exit_code == 0, shown.output
    header, *rows = shown.output.splitlines()
    assert header.split()[:3] == ["PLAYER", "GAMES", "WINS"]
    assert "ACCEPTS" in header
    assert sorted(row.split()[0] for row in rows) == ["Ana", "Ben", "Cleo"]
    assert all(row.split()[1] == "2" for row in rows)
    empty = runner.invoke(main, ["--database-url", url, "leaderboard", "--players", "5"])
    assert empty.output.strip() == "No ended games yet."
