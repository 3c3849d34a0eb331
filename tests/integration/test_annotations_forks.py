"""Annotations and what-if forks, stored beside the games on every store."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest

from domain.aggregate import Game
from domain.application import Bohnanza
from domain.bots import simulate
from domain.rules import events as ev
from domain.rules.commands import Draw, Harvest, Reveal
from domain.rules.errors import Forbidden, InvalidInput, NotFound
from domain.rules.legal import legal_commands
from domain.rules.transcript import commands_from_facts
from projections.views import AUDITOR_VIEWER, HOST_VIEWER, PUBLIC_VIEWER, Viewer
from replays import forks as forks_module
from replays.annotations import (
    GUEST,
    NOTE_IDS,
    Annotations,
    Author,
    add_note,
    delete_note,
    edit_note,
    notes_for,
)
from replays.forks import ancestors, compare, create_fork, fork_facts, forks_of, parent_of
from replays.games import (
    annotations_of,
    audit_stored_game,
    export_game,
    import_record,
    verify_game,
)

ANA = Author("seat", "Ana", 0)
BEN = Author("seat", "Ben", 1)
HOST = Author("host", "host")


def finished_game(app: Bohnanza, seed: int = 4) -> UUID:
    """A complete greedy bot game, stored in one save."""
    first, *rest = simulate("rio-grande", 3, seed=seed)
    game = Game.start(first, game_id=uuid4())
    game.record(rest)
    app.save(game)
    return game.id


def first_step(facts, kind, **match) -> int:
    for position, fact in enumerate(facts, start=1):
        if isinstance(fact, kind) and all(getattr(fact, k) == v for k, v in match.items()):
            return position
    raise LookupError(kind)


@pytest.fixture
def game(app: Bohnanza) -> tuple[UUID, list[ev.Event]]:
    game_id = finished_game(app)
    return game_id, app.facts(game_id)


# --- annotations ----------------------------------------------------------------------------------


def test_a_public_note_with_a_glyph_is_shown_to_everyone(app, game):
    game_id, facts = game
    add_note(app, game_id, facts, step=5, author=ANA, text="a fine second plant", glyph="!")

    for viewer in (PUBLIC_VIEWER, Viewer.of_seat(2), HOST_VIEWER, AUDITOR_VIEWER):
        [note] = notes_for(app, game_id, facts, viewer)
        assert (note.step, note.glyph, note.author.name) == (5, "!", "Ana")


@pytest.mark.parametrize(
    ("visibility", "seat", "readers"),
    [
        ("author", None, {"seat 0"}),
        ("seat", 1, {"seat 0", "seat 1"}),
        ("table", None, {"seat 0", "seat 1", "seat 2", "host"}),
        ("public", None, {"seat 0", "seat 1", "seat 2", "host", "public", "auditor"}),
    ],
)
def test_a_note_s_visibility_decides_who_reads_it(app, game, visibility, seat, readers):
    game_id, facts = game
    step = first_step(facts, ev.TradingEnded)
    add_note(
        app, game_id, facts, step=step, author=ANA, text="hm", visibility=visibility, seat=seat
    )

    everyone = [Viewer.of_seat(s) for s in range(3)] + [PUBLIC_VIEWER, HOST_VIEWER, AUDITOR_VIEWER]
    shown = {str(v) for v in everyone if notes_for(app, game_id, facts, v)}

    assert shown == readers


def test_a_note_on_a_step_holding_a_hidden_card_is_not_shown_to_who_may_not_know_it(app, game):
    game_id, facts = game
    step = first_step(facts, ev.CardDrawn, seat=0)
    add_note(app, game_id, facts, step=step, author=ANA, text="drew what I needed")

    assert notes_for(app, game_id, facts, Viewer.of_seat(0))
    assert notes_for(app, game_id, facts, AUDITOR_VIEWER)
    assert notes_for(app, game_id, facts, Viewer.of_seat(1)) == []
    assert notes_for(app, game_id, facts, PUBLIC_VIEWER) == []


def test_an_edit_keeps_the_history_and_a_deletion_hides_the_note(app, game):
    game_id, facts = game
    note = add_note(app, game_id, facts, step=3, author=ANA, text="first thought", glyph="?")

    edited = edit_note(app, game_id, facts, note.id, editor=ANA, text="second thought", glyph="!?")
    assert edited.history == [
        {"text": "first thought", "glyph": "?", "visibility": "public", "seat": None}
    ]
    delete_note(app, game_id, note.id, editor=ANA)

    assert notes_for(app, game_id, facts, PUBLIC_VIEWER) == []
    stored = app.events.get(Annotations.create_id(str(game_id)))
    assert [type(e).__name__ for e in stored] == [
        "Opened",
        "NoteAdded",
        "NoteEdited",
        "NoteDeleted",
    ]


def test_only_the_author_may_edit_or_delete_a_note(app, game):
    game_id, facts = game
    note = add_note(app, game_id, facts, step=3, author=ANA, text="mine")

    with pytest.raises(Forbidden):
        edit_note(app, game_id, facts, note.id, editor=BEN, text="yours now")
    with pytest.raises(Forbidden):
        delete_note(app, game_id, note.id, editor=HOST)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"step": 0}, "step 0 does not exist"),
        ({"glyph": "!!!"}, "glyph '!!!' is not one of"),
        ({"visibility": "friends"}, "visibility 'friends' is not one of"),
        ({"visibility": "seat"}, "names that seat"),
        ({"text": "   "}, "a note needs text"),
        ({"text": "\u200b"}, "a note needs text"),
        ({"text": " \u200b\u2060\ufeff\n\u200b"}, "a note needs text"),
        ({"text": "\u3164\u2800"}, "a note needs text"),
        ({"text": "a\x00b"}, "the control character U+0000"),
        ({"text": "ring\x07"}, "the control character U+0007"),
        ({"text": "great move \u202e"}, "the bidirectional control U+202E"),
        ({"text": "\u2067isolated"}, "the bidirectional control U+2067"),
    ],
)
def test_a_note_that_cannot_exist_is_refused(app, game, change, message):
    game_id, facts = game
    note = {"step": 3, "author": ANA, "text": "x", **change}

    with pytest.raises(InvalidInput) as refused:
        add_note(app, game_id, facts, **note)

    assert message in str(refused.value)


def test_a_note_may_hold_line_breaks_and_tabs(app, game):
    game_id, facts = game

    add_note(app, game_id, facts, step=3, author=ANA, text="first:\tplant\r\nthen: trade")

    assert notes_for(app, game_id, facts, PUBLIC_VIEWER)[0].text == "first:\tplant\r\nthen: trade"


def test_a_note_may_be_written_right_to_left(app, game):
    game_id, facts = game

    add_note(app, game_id, facts, step=3, author=ANA, text="מהלך יפה! nice move")

    assert notes_for(app, game_id, facts, PUBLIC_VIEWER)[0].text == "מהלך יפה! nice move"


def test_a_guest_may_only_write_public_notes(app, game):
    game_id, facts = game
    guest = Author(GUEST, "Kibitzer")

    with pytest.raises(Forbidden):
        add_note(app, game_id, facts, step=3, author=guest, text="psst", visibility="table")
    add_note(app, game_id, facts, step=3, author=guest, text="well played")
    assert notes_for(app, game_id, facts, PUBLIC_VIEWER)[0].author.name == "Kibitzer"


def test_editing_a_note_that_does_not_exist_is_not_found(app, game):
    game_id, facts = game

    with pytest.raises(NotFound):
        edit_note(app, game_id, facts, 7, editor=ANA, text="?")


def test_a_note_s_number_tells_nothing_of_the_notes_before_it(app, game):
    """Counted up per game, Ben's first number told him that two notes he cannot read exist."""
    game_id, facts = game
    for _ in range(2):
        add_note(app, game_id, facts, step=3, author=ANA, text="bluff Ben", visibility="author")

    bens = add_note(app, game_id, facts, step=3, author=BEN, text="my first note")

    assert bens.id not in (1, 2, 3)
    assert 1 <= bens.id < NOTE_IDS


def test_a_step_s_notes_are_listed_as_they_were_added(app, game):
    game_id, facts = game
    texts = [f"note {n}" for n in range(8)]
    for text in texts:
        add_note(app, game_id, facts, step=3, author=ANA, text=text)

    listed = notes_for(app, game_id, facts, PUBLIC_VIEWER)

    assert [note.text for note in listed] == texts


def test_notes_numbered_before_numbers_were_drawn_keep_their_numbers(app, game):
    """A store from before: notes counted 1, 2, … per game keep those numbers (their URLs)."""
    game_id, facts = game
    stored = Annotations(game_id=str(game_id))
    stored.add(1, 4, ANA.to_dict(), "first", None, "public", None)
    stored.add(2, 3, ANA.to_dict(), "second", None, "public", None)
    app.save(stored)

    edit_note(app, game_id, facts, 2, editor=ANA, text="second, edited")
    added = add_note(app, game_id, facts, step=3, author=BEN, text="third")

    listed = notes_for(app, game_id, facts, PUBLIC_VIEWER)
    assert [(note.id, note.text) for note in listed] == [
        (2, "second, edited"),
        (added.id, "third"),
        (1, "first"),
    ]
    assert added.id not in (1, 2, 3)


def test_a_record_s_notes_come_back_in_their_order_with_numbers_of_their_own(app, game):
    game_id, facts = game
    for text in ("one", "two", "three"):
        add_note(app, game_id, facts, step=3, author=ANA, text=text)
    exported = export_game(app, game_id, annotations=annotations_of(app, game_id))

    imported = import_record(app, exported).game_id

    again = notes_for(app, imported, app.facts(imported), PUBLIC_VIEWER)
    assert [note.text for note in again] == ["one", "two", "three"]
    assert {note.id for note in again}.isdisjoint(a["id"] for a in exported["annotations"])


# --- forks ------------------------------------------------------------------------------------


def test_forks_stored_at_once_are_each_listed_by_their_parent(app, game, monkeypatch):
    """Two forks of one game change its lineage at once: the one stored second is tried again
    on the lineage as stored, not lost (nor a 500)."""
    game_id, _ = game
    stale = [forks_module._lineage(app, game_id)]
    first = create_fork(app, game_id, 40)
    real = forks_module._lineage
    monkeypatch.setattr(forks_module, "_lineage", lambda *a: stale.pop() if stale else real(*a))

    second = create_fork(app, game_id, 80)

    assert forks_of(app, game_id) == [
        {"game_id": str(first.game_id), "step": first.step},
        {"game_id": str(second.game_id), "step": second.step},
    ]


def test_an_import_stores_its_game_header_and_notes_in_one_transaction(app, game, monkeypatch):
    """A server stopping between them had left a game without its notes."""
    game_id, facts = game
    add_note(app, game_id, facts, step=3, author=ANA, text="a note")
    record = export_game(app, game_id, place="Home", annotations=annotations_of(app, game_id))
    saved: list[list[str]] = []
    save = app.save

    def recorded(*aggregates, **kwargs):
        saved.append([type(aggregate).__name__ for aggregate in aggregates])
        return save(*aggregates, **kwargs)

    monkeypatch.setattr(app, "save", recorded)

    import_record(app, record)

    assert saved == [["Game", "RecordHeader", "Annotations"]]


def test_a_fork_replays_the_parent_card_for_card_up_to_the_fork_step(app, game):
    game_id, facts = game

    fork = create_fork(app, game_id, 120)

    assert fork.step <= 120
    assert app.state(fork.game_id).mode == "tabletop"
    assert commands_from_facts(app.facts(fork.game_id), tabletop=True) == commands_from_facts(
        facts[: fork.step], tabletop=True
    )


def test_a_fork_starts_at_a_command_boundary(game):
    facts = game[1]
    draw = first_step(facts, ev.CardDrawn)

    fork = fork_facts(facts, draw + 1)  # in the middle of a three-card draw

    assert len(fork) == draw - 1
    assert not isinstance(fork[-1], ev.CardDrawn)


def test_the_parent_lists_its_forks_and_each_fork_knows_its_parent(app, game):
    game_id, _ = game

    first = create_fork(app, game_id, 50)
    second = create_fork(app, game_id, 200)

    assert [f["game_id"] for f in forks_of(app, game_id)] == [
        str(first.game_id),
        str(second.game_id),
    ]
    assert parent_of(app, second.game_id) == {"game_id": str(game_id), "step": second.step}
    assert parent_of(app, game_id) is None


def play_until_chance(app: Bohnanza, game_id: UUID):
    """Give the first non-harvest legal command of any seat until the game waits for cards."""
    state = app.state(game_id)
    while (chance := legal_commands(state, state.active).chance) is None:
        command = next(
            c
            for seat in range(len(state.players))
            for c in legal_commands(state, seat)
            if not isinstance(c, Harvest)
        )
        app.execute(game_id, command)
        state = app.state(game_id)
    return state, chance


def test_in_a_fork_the_analyst_chooses_the_cards_that_come_off_the_pile(app, game):
    game_id, facts = game
    fork = create_fork(app, game_id, first_step(facts, ev.TradingEnded))
    state, chance = play_until_chance(app, fork.game_id)
    plenty = max(set(state.draw_pile), key=state.draw_pile.count)
    cards = (plenty,) * chance.count
    command = (Draw if chance.kind == "draw" else Reveal)(state.active, cards)

    outcome = app.execute(fork.game_id, command)

    drawn = [f for f in outcome.facts if isinstance(f, ev.CardDrawn | ev.CardsRevealed)]
    assert [getattr(f, "bean", None) or f.cards for f in drawn] in ([plenty] * 3, [list(cards)])


def test_a_fork_still_being_played_is_compared_with_its_finished_parent(app, game):
    game_id, facts = game
    fork = create_fork(app, game_id, 30)

    report = compare(app, fork.game_id)

    assert report["parent"] == {
        "game_id": game_id,
        "status": "ended",
        "scores": facts[-1].scores,
        "winners": facts[-1].winners,
        "decided_by": facts[-1].decided_by,
    }
    assert report["fork"]["status"] == "in-progress"
    assert report["step"] == fork.step
    assert report["same_outcome"] is None


def test_a_fork_of_the_whole_game_reaches_the_same_outcome(app, game):
    game_id, facts = game

    fork = create_fork(app, game_id, len(facts))

    assert compare(app, fork.game_id)["same_outcome"] is True
    assert app.state(fork.game_id).result == app.state(game_id).result


def test_a_fork_of_a_fork_descends_from_both_games_its_parent_first(app, game):
    game_id, _ = game
    fork = create_fork(app, game_id, 30)
    grandchild = create_fork(app, fork.game_id, 20)

    assert ancestors(app, grandchild.game_id) == [fork.game_id, game_id]
    assert ancestors(app, game_id) == []


def test_a_fork_starts_as_a_sandbox_and_audits_sound(app, game):
    game_id, facts = game

    fork = create_fork(app, game_id, len(facts) // 2)

    started = app.facts(fork.game_id)[0]
    assert isinstance(started, ev.GameStarted)
    assert started.sandbox is True
    assert audit_stored_game(app, fork.game_id) == []
    assert verify_game(app, fork.game_id).verdict == "legal"


def test_a_fork_s_record_says_sandbox_and_imports_as_a_sandbox_with_the_same_facts(app, game):
    game_id, facts = game
    fork = create_fork(app, game_id, len(facts))

    document = export_game(app, fork.game_id)
    copy = import_record(app, document)

    assert document["header"]["sandbox"] is True
    assert "sandbox" not in export_game(app, game_id)["header"]
    assert app.facts(copy.game_id) == app.facts(fork.game_id)


def test_only_a_fork_can_be_compared_with_its_parent(app, game):
    game_id = game[0]

    with pytest.raises(NotFound, match="not a fork"):
        compare(app, game_id)
