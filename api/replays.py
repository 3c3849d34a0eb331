"""Replays: step through a game, annotate its steps, fork it, compare a fork with its parent.

The table at a step is folded from the facts the caller's viewer saw (a seat's token: that seat;
the host's: the host; none: the public). `perspective=auditor` shows every card, allowed once the
game is over (or with the server's auditor secret).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from flask import Response

from domain.ids import new_game_id
from domain.request_keys import AppliedRequest
from domain.rules import events as ev
from domain.rules.commands import Command, NoteHand
from domain.rules.notation import describe_command
from domain.rules.state import TABLETOP, UNSEEN
from domain.rules.transcript import entries
from projections.views import HOST, SEAT, Viewer, render
from replays import annotations, forks
from replays.steps import Replay

from . import schemas
from .blueprint import Blueprint
from .creation_keys import NO_CALLER
from .errors import documented, forbidden, unauthorized
from .games import (
    SEAT_TOKEN_OR_NONE,
    TOKEN_AUDITOR_OR_NONE,
    _auditor_rights,
    caller_for,
    created_once,
    open_to_all,
    seat_tokens,
    services,
    viewer_for,
)
from .openapi import game_links
from .security import Caller, IssuedTokens

blp = Blueprint(
    "replays",
    __name__,
    url_prefix="/api",
    description="Step through games, annotate steps, fork what-ifs and compare outcomes.",
)


def _replay(game_id: UUID, query: dict[str, Any]) -> Replay:
    """The game to step through, as corrected or (`as=recorded`) as recorded."""
    return services().views.replay(game_id, as_recorded=query.get("as") == "recorded")


def _viewer(game_id: UUID, query: dict[str, Any]) -> tuple[Replay, Viewer]:
    replay = _replay(game_id, query)
    viewer = viewer_for(game_id, caller_for(game_id), perspective=query.get("perspective"))
    return replay, viewer


@blp.route("/games/<uuid:game_id>/steps", methods=["GET"])
@blp.arguments(schemas.ReplayQuerySchema, location="query")
@blp.response(200, schemas.StepListSchema)
@documented(blp, 401, 403, 404, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def steps(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """Every step of the game with its turn, phase, actor and a one-line summary.

    The summary is the line the caller's viewer saw, as step_detail gives it: a seat's own draw
    names the card ("Ben draws Blue"), the public's says "a card". A corrected tabletop game's
    steps are those of the game as corrected (each step marked with the correction that changed
    its entry), or with `as=recorded` the entries as they were made, each correction a step of
    its own."""
    replay, viewer = _viewer(game_id, query)
    seen = replay.steps_seen_by(viewer, auditor_rights=_auditor_rights())
    corrections = sum(
        isinstance(recorded.fact, ev.EntriesCorrected)
        for recorded in services().views.facts(game_id)
    )
    return {
        "as": query["as"],
        "corrections": corrections,
        "steps": [step.to_dict() for step in seen],
        "turns": list(replay.turns()),
        "over": replay.is_over,
        "open_to_all": open_to_all(game_id),
    }


@blp.route("/games/<uuid:game_id>/entries", methods=["GET"])
@blp.response(200, schemas.EntryListSchema)
@documented(blp, 401, 403, 404)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def list_entries(game_id: UUID) -> dict[str, Any]:
    """The entries of a tabletop game, as corrections name them.

    For its host (who entered them) while it runs; for everyone once every card is open (see
    export_record), or with the server's auditor secret."""
    caller = caller_for(game_id)
    started = services().views.started(game_id)
    host = caller is not None and caller.role == HOST and started.mode == TABLETOP
    if not (host or open_to_all(game_id) or _auditor_rights()):
        raise forbidden(
            "a game's entries name every card: they are the host's (of a tabletop game) while "
            "it runs, and open to everyone once it is over"
        )
    views = services().views
    facts = views.corrected(game_id)
    replay = views.replay(game_id)
    found = entries(facts, tabletop=True)
    return {
        "entries": [
            {
                "entry": number,
                "command": _entry_command(entry.command),
                "text": describe_command(entry.command, started.seats),
                "first_step": entry.first + 1,
                "last_step": entry.stop,
                "corrected": replay.marks[entry.first],
            }
            for number, entry in enumerate(found)
        ],
        "version": len(views.facts(game_id)),
    }


def _entry_command(command: Command) -> dict[str, Any]:
    """An entry's command as JSON: a seat's note shows no cards (they are that seat's alone)."""
    if isinstance(command, NoteHand):
        return NoteHand(command.seat, (UNSEEN,) * len(command.cards)).to_dict()
    return command.to_dict()


@blp.route("/games/<uuid:game_id>/steps/<count:position>", methods=["GET"])
@blp.arguments(schemas.ReplayQuerySchema, location="query")
@blp.response(200, schemas.StepDetailSchema)
@documented(blp, 401, 403, 404, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def step_detail(query: dict[str, Any], game_id: UUID, position: int) -> dict[str, Any]:
    """One step: the table after it as the caller saw it.

    Also what the step changed, and the notes on it the caller may read (see list_notes)."""
    replay, viewer = _viewer(game_id, query)
    rights = _auditor_rights()
    view = replay.view_at(position, viewer, auditor_rights=rights)
    changed = replay.changes(position, viewer, auditor_rights=rights)
    notes = (  # notes are on the steps of the game as corrected
        []
        if replay.recorded is not None
        else annotations.notes_for(services().app, game_id, replay.facts, viewer, step=position)
    )
    return {
        "step": changed.step.to_dict(),
        "summary": changed.summary,
        "event": {"type": changed.fact.kind, "payload": changed.fact.payload()},
        "changes": [
            {"path": change.path, "before": change.before, "after": change.after}
            for change in changed.changes
        ],
        "view": {**render(view, viewer), "version": position},
        "notes": [note.to_dict() for note in notes],
    }


@blp.route("/games/<uuid:game_id>/jump", methods=["GET"])
@blp.arguments(schemas.JumpQuerySchema, location="query")
@blp.response(200, schemas.JumpSchema)
@documented(blp, 401, 404, 422)
def jump(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """Find the step to go to.

    The first of turn `turn` (a turn the game does not have is a 404 naming the turns it has),
    or the next (previous) fact of `kind` after (before) step `from` (`position` null when there
    is none)."""
    replay = _replay(game_id, query)
    if "turn" in query:
        return {"position": replay.turn_start(query["turn"])}
    start = query.get("from", 0 if query["direction"] == "next" else len(replay) + 1)
    find = replay.next_of if query["direction"] == "next" else replay.previous_of
    return {"position": find(query["kind"], start)}  # a kind the schema lists


@blp.route("/games/<uuid:game_id>/timeline", methods=["GET"])
@blp.arguments(schemas.ReplayQuerySchema, location="query")
@blp.response(200, schemas.TimelineSchema)
@documented(blp, 401, 403, 404, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def timeline(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """Each seat's coins turn by turn.

    At the start of every turn and at the end, as the caller may see them (null where the
    ruleset keeps a treasury secret)."""
    replay, viewer = _viewer(game_id, query)
    rights = _auditor_rights()
    points = [(turn, replay.turn_start(turn)) for turn in replay.turns() if turn > 0]
    points.append((points[-1][0] if points else 0, len(replay)))
    return {
        "seats": list(replay.names),
        "points": [
            {
                "turn": turn,
                "position": position,
                "coins": [
                    seat["coins"]
                    for seat in render(
                        replay.view_at(position, viewer, auditor_rights=rights), viewer
                    )["seats"]
                ],
            }
            for turn, position in points
        ],
    }


# --- annotations --------------------------------------------------------------------------------


def _author(game_id: UUID, guest_name: str | None, *, editing: bool = False) -> annotations.Author:
    caller = caller_for(game_id)
    if caller is None:
        if editing:  # a guest has nothing to prove a note is theirs
            raise unauthorized(
                "only a note's author may change it: send its seat's or host's token"
            )
        if not guest_name:
            raise unauthorized("a note needs a seat's or the host's token, or a guest author name")
        return annotations.Author(annotations.GUEST, guest_name.strip())
    if caller.role == HOST:
        return annotations.Author(HOST, "host")
    assert caller.seat is not None
    started = services().views.started(game_id)
    return annotations.Author(SEAT, started.seats[caller.seat], caller.seat)


def _facts(game_id: UUID) -> list[ev.Event]:
    return services().views.replay(game_id).facts


@blp.route("/games/<uuid:game_id>/annotations", methods=["GET"])
@blp.arguments(schemas.NotesQuerySchema, location="query")
@blp.response(200, schemas.NoteListSchema)
@documented(blp, 401, 403, 404, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def list_notes(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """The notes the caller may read, by step (only step `step`'s if given).

    A note's visibility decides who may read it (its author always may). Steps follow the game
    as the caller saw it, even after the end, so a note on a step holding a card the caller did
    not see (another seat's draw, the deal, an offer's hand cards) is left out here and in
    step_detail, whatever its visibility. `perspective=auditor` knows every card: it lists every
    public note. A record's export (export_record) holds every note the caller may read."""
    _, viewer = _viewer(game_id, query)
    notes = annotations.notes_for(
        services().app, game_id, _facts(game_id), viewer, step=query.get("step")
    )
    return {"notes": [note.to_dict() for note in notes]}


@blp.route("/games/<uuid:game_id>/annotations", methods=["POST"])
@blp.arguments(schemas.NoteCreateSchema)
@blp.response(201, schemas.NoteSchema)
@documented(blp, 400, 401, 403, 404, 408, 413, 415, 422)
@blp.doc(security=SEAT_TOKEN_OR_NONE)
def add_note(body: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """Annotate a step.

    With a seat's or the host's token any visibility; without one (a guest, naming itself in
    `author`) only public notes on a game that is over."""
    facts = _facts(game_id)
    author = _author(game_id, body.get("author"))
    if author.role == annotations.GUEST and not isinstance(facts[-1], ev.GameEnded):
        raise forbidden("guests may annotate a game only once it is over")
    note = annotations.add_note(
        services().app,
        game_id,
        facts,
        step=body["step"],
        author=author,
        text=body["text"],
        glyph=body.get("glyph"),
        visibility=body["visibility"],
        seat=body.get("seat"),
    )
    return note.to_dict()


@blp.route("/games/<uuid:game_id>/annotations/<count:note>", methods=["PATCH"])
@blp.arguments(schemas.NoteEditSchema)
@blp.response(200, schemas.NoteSchema)
@documented(blp, 400, 401, 403, 404, 408, 413, 415, 422)
@blp.doc(security=[{"bearer": []}])
def edit_note(body: dict[str, Any], game_id: UUID, note: int) -> dict[str, Any]:
    """Change a note (its author only); the earlier versions stay in its history.

    A guest's note stays as it is: nothing proves who a guest is. A note the caller may not read
    (see list_notes) is a 404 like a missing one, so that its existence and author stay hidden;
    one it may read but did not write is a 403. `note` is the note's `id`, which tells nothing
    of other notes: it is drawn at random."""
    author = _author(game_id, None, editing=True)
    edited = annotations.edit_note(
        services().app, game_id, _facts(game_id), note, editor=author, **body
    )
    return edited.to_dict()


@blp.route("/games/<uuid:game_id>/annotations/<count:note>", methods=["DELETE"])
@blp.response(204)
@documented(blp, 401, 403, 404)
@blp.doc(security=[{"bearer": []}])
def delete_note(game_id: UUID, note: int) -> Response:
    """Delete a note (its author only); the deletion is recorded, the history kept.

    As for edit_note, a note the caller may not read is a 404 like a missing one."""
    author = _author(game_id, None, editing=True)
    annotations.delete_note(services().app, game_id, note, editor=author)
    return Response(status=204)


# --- forks ----------------------------------------------------------------------------------------


@blp.route("/games/<uuid:game_id>/forks", methods=["POST"])
@blp.arguments(schemas.ForkCreateSchema)
@blp.response(201, schemas.ForkCreatedSchema, headers=schemas.CREATED_RESPONSE_HEADERS)
@blp.doc(**game_links(201), parameters=schemas.CREATION_HEADERS)
@documented(blp, 400, 401, 403, 404, 408, 409, 410, 413, 415, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def create_fork(body: dict[str, Any], game_id: UUID) -> Response:
    """A sandbox game continuing from step `step` (snapped back to the last whole command).

    It is a tabletop game: its host token acts for every seat and names every card drawn, so any
    line of play can be tried. A fork shows every hand, so only a game that is over may be
    forked (or with the server's auditor secret)."""
    service = services()
    replay = service.views.replay(game_id)
    if not (open_to_all(game_id) or _auditor_rights()):
        raise forbidden(
            "a fork shows every hand: only a game that is over (and, for a fork, every game it "
            "was forked from) may be forked"
        )
    seats = list(replay.names)

    def create(fork_id: UUID, issued: IssuedTokens, key: str | None) -> dict[str, Any]:
        fork = forks.create_fork(
            service.app, game_id, body["step"], fork_id=fork_id, request_key=key
        )
        return _fork_created(fork.game_id, fork.step, issued)

    def rebuild(fork_id: UUID, issued: IssuedTokens, stored: AppliedRequest) -> dict[str, Any]:
        return _fork_created(fork_id, stored.last_version, issued)  # its step is its version

    def _fork_created(fork_id: UUID, step: int, issued: IssuedTokens) -> dict[str, Any]:
        return {
            "game_id": fork_id,
            "parent": game_id,
            "step": step,
            "version": step,
            "seats": seat_tokens(seats, issued),
            "host_token": issued.host,
        }

    caller = caller_for(game_id)
    return created_once(
        schemas.ForkCreatedSchema(),
        f"forks/{game_id}",
        body,
        game_id=new_game_id(),
        seats=len(seats),
        create=create,
        rebuild=rebuild,
        caller=NO_CALLER if caller is None else caller.token_digest,
    )


@blp.route("/games/<uuid:game_id>/forks", methods=["GET"])
@blp.response(200, schemas.LineageSchema)
@documented(blp, 401, 404)
def lineage(game_id: UUID) -> dict[str, Any]:
    """The game this one was forked from (if any) and the forks made from it."""
    app = services().app
    return {"parent": forks.parent_of(app, game_id), "forks": forks.forks_of(app, game_id)}


@blp.route("/games/<uuid:game_id>/comparison", methods=["GET"])
@blp.arguments(schemas.PerspectiveQuerySchema, location="query")
@blp.response(200, schemas.ComparisonSchema)
@documented(blp, 401, 403, 404, 422)
@blp.doc(security=TOKEN_AUDITOR_OR_NONE)
def comparison(query: dict[str, Any], game_id: UUID) -> dict[str, Any]:
    """A fork's outcome (coins so far if still running) beside its parent's.

    Each side's coins are the ones its view would show the caller: with a secret treasury
    (`coin_counts_visible` false) a running game's coins the caller may not see are null. A token
    is the fork's (its seat or host); in the parent the caller is the public.
    `perspective=auditor` shows every coin of both, as in the views. `same_outcome` is null until
    both have ended. A game that is not a fork has no comparison (404)."""
    seen = _comparison_viewer(game_id, caller_for(game_id), query.get("perspective"))
    return forks.compare(services().app, game_id, viewer_in=seen)


def _comparison_viewer(
    fork: UUID, caller: Caller | None, perspective: str | None
) -> Callable[[UUID], Viewer]:
    """Who the caller is in the fork and in its parent: the views' own rule (`viewer_for`), so a
    comparison shows no coin the caller could not see in either game. A token belongs to one
    game, the fork; in the parent it proves nothing."""

    def viewer_in(game_id: UUID) -> Viewer:
        return viewer_for(game_id, caller if game_id == fork else None, perspective=perspective)

    return viewer_in
