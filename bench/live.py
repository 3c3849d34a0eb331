"""Live streams benchmark: a command's round trip while 100 followers watch its game, beside the
same command on a game no one watches, in the same run on the same server.

    .venv/bin/python -m bench.live [--followers 100] [--repeats 3] [--paced 120]

The server is gunicorn as `bohnanza serve` runs it (one worker of the service's worker class,
8 threads, one SQLite file, the read models kept in the process). Each repeat starts two copies
of one greedy-bot game over HTTP: the watched one gets `--followers` open streams of the public
(`GET …/live`), read by a separate process that keeps every connection drained; the other
none. The client (libcurl, one kept-alive connection, as bench/api.py) plays both games'
commands in alternating blocks of `BLOCK` commands, so that the machine's moods hit both sides.
Target: the watched game's median round trip ≤ 1.5 × the unwatched game's.

Two paces: the whole game back to back, as a bot or an upload sends it (the hub sends its
followers one message per `MESSAGE_INTERVAL_SECONDS` for all the commands of that interval), and
the first `--paced` commands a little more than that interval apart, as a quick table plays
(every command its own message, sent to the 100 streams while the next is awaited).

Also printed: how long after a command's answer the last of the followers had its update
(clocks compared with CLOCK_MONOTONIC, which both processes share), and the bytes each follower
received. Then, why the worker hands streams to the live hub: the same server with gunicorn's
plain threaded worker (`gthread`, 8 threads), where each open stream holds a thread until its
client leaves, and a command sent after 8 followers have connected waits.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import selectors
import socket
import statistics
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection as Pipe
from urllib.parse import urlsplit

import httpx
import orjson

from api.live_hub import MESSAGE_INTERVAL_SECONDS
from bench.api import BotGame, HttpGame, LibcurlConnection
from domain.rules.commands import Command
from tests.e2e.server import gunicorn

BLOCK = 20
"""Commands played on one game before switching to the other."""
PLAIN_GTHREAD = "gthread"


@dataclass
class Side:
    """One game's round trips, in seconds, and when each command's answer came."""

    times: list[float]
    answered: dict[int, float]
    """Version → CLOCK_MONOTONIC when its answer came."""


def follow(address: tuple[str, int], game_id: str, count: int, pipe: Pipe) -> None:
    """In its own process: open `count` public streams of the game, drain them all, and record
    when each saw each version; once told to stop, send each stream's (version, time) pairs
    and the bytes a stream read."""
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(address)
        request = f"GET /api/games/{game_id}/live HTTP/1.1\r\nHost: bench\r\n\r\n"
        sock.sendall(request.encode())
        sock.setblocking(False)
        sockets.append(sock)
    selector = selectors.DefaultSelector()
    tails = {}
    for sock in sockets:
        selector.register(sock, selectors.EVENT_READ)
        tails[sock] = b""
    seen: dict[socket.socket, list[tuple[int, float]]] = {sock: [] for sock in sockets}
    received = 0
    pipe.send("open")
    while not pipe.poll():
        for key, _ in selector.select(0.05):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            now = time.monotonic()
            received += len(data)
            if not data:
                selector.unregister(sock)
                continue
            text = tails[sock] + data
            lines = text.split(b"\n")
            tails[sock] = lines.pop()
            for line in lines:
                if line.startswith(b"id: "):
                    seen[sock].append((int(line[4:]), now))
    for sock in sockets:
        sock.close()
    pipe.send((list(seen.values()), received / count))


def play_block(
    connection: LibcurlConnection,
    game: HttpGame,
    commands: list[Command],
    side: Side,
    pause: float,
) -> None:
    for command in commands:
        time.sleep(pause)
        body = command.to_dict()
        seat = body.pop("seat")
        start = time.perf_counter()
        status, answer = connection.post(game.url, json.dumps(body), game.tokens[seat])
        side.times.append(time.perf_counter() - start)
        answered = time.monotonic()
        if status != 200:
            raise RuntimeError(f"{body} was answered {status}: {answer!r}")
        side.answered[orjson.loads(answer)["version"]] = answered


def one_run(
    game: BotGame, followers: int, played: int, pause: float
) -> tuple[Side, Side, list[float], float]:
    """Both games on a new server, their first `played` commands each `pause` seconds after the
    last answer: (unwatched, watched, delivery delays, bytes per follower)."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        gunicorn(f"sqlite:///{tmp}/live.sqlite3", "--threads", "8", workers=1) as base,
        httpx.Client(base_url=base, timeout=30.0) as client,
    ):
        host, port = urlsplit(base).netloc.split(":")
        warm = HttpGame(client, game)
        connection = LibcurlConnection(base)
        for command in game.commands[:BLOCK]:
            warm.play_with(connection, command)
        quiet, watched = HttpGame(client, game), HttpGame(client, game)
        watched_id = watched.url.split("/")[3]
        ours, theirs = multiprocessing.Pipe()
        reader = multiprocessing.Process(
            target=follow, args=((host, int(port)), watched_id, followers, theirs)
        )
        reader.start()
        assert ours.recv() == "open"
        time.sleep(1.0)  # every stream has had its first message
        unwatched_side, watched_side = Side([], {}), Side([], {})
        for start in range(0, played, BLOCK):
            block = game.commands[start : min(start + BLOCK, played)]
            play_block(connection, quiet, block, unwatched_side, pause)
            play_block(connection, watched, block, watched_side, pause)
        time.sleep(1.0)
        ours.send("stop")
        seen, bytes_each = ours.recv()
        reader.join()
        connection.close()
    delays = []
    for version, answered in watched_side.answered.items():
        # an update may carry several commands: each follower's first at or past the version
        arrivals = [next((t for v, t in stream if v >= version), None) for stream in seen]
        if None not in arrivals:
            delays.append(max(arrivals) - answered)
    return unwatched_side, watched_side, delays, bytes_each


def starved_without_the_hub(followers: int) -> str:
    """With gunicorn's plain gthread worker: does a command get through once `followers`
    streams are open on its 8 threads?"""
    game = BotGame.simulated(2)
    with (
        tempfile.TemporaryDirectory() as tmp,
        gunicorn(
            f"sqlite:///{tmp}/plain.sqlite3",
            "--threads",
            "8",
            workers=1,
            worker_class=PLAIN_GTHREAD,
        ) as base,
        httpx.Client(base_url=base, timeout=30.0) as client,
    ):
        remote = HttpGame(client, game)
        host, port = urlsplit(base).netloc.split(":")
        streams = []
        for _ in range(followers):
            sock = socket.create_connection((host, int(port)))
            sock.sendall(
                f"GET {remote.url[: -len('/commands')]}/live HTTP/1.1\r\n"
                "Host: bench\r\n\r\n".encode()
            )
            streams.append(sock)
        time.sleep(1.0)
        start = time.perf_counter()
        try:
            remote.client.post(
                remote.url,
                json={"type": "plant", "field": 0},
                headers={"Authorization": remote.tokens[0]},
                timeout=3.0,
            )
            outcome = f"answered in {time.perf_counter() - start:.3f} s"
        except httpx.TimeoutException:
            outcome = "not answered within 3 s"
        for sock in streams:
            sock.close()
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--paced", type=int, default=120, help="commands played at a table's pace (0: none)"
    )
    args = parser.parse_args()
    game = BotGame.simulated(1)
    print(
        f"a command's round trip (libcurl → gunicorn, SQLite; {len(game.commands)} commands a game,"
        f" rio-grande 4 players), {args.repeats} runs, {args.followers} followers on one of two games"
    )
    paces = [("back to back (the whole game)", len(game.commands), 0.0)]
    if args.paced:
        pause = MESSAGE_INTERVAL_SECONDS + 0.01
        paces.append(
            (
                f"at a table's pace ({args.paced} commands, {pause * 1000:.0f} ms apart)",
                min(args.paced, len(game.commands)),
                pause,
            )
        )
    for title, played, pause in paces:
        print(f" {title}:")
        report(*(one_run(game, args.followers, played, pause) for _ in range(args.repeats)))
    print()
    print("gunicorn's plain threaded worker (gthread, 8 threads), streams holding their threads:")
    for followers in (4, 8):
        print(f"   {followers} followers open, a command: {starved_without_the_hub(followers)}")


def report(*runs: tuple[Side, Side, list[float], float]) -> None:
    """Medians over the runs: each side's round trip, their ratio, the followers' delays."""
    ratios, quiet_ms, watched_ms, delays, sizes = [], [], [], [], []
    for unwatched, watched, delivered, bytes_each in runs:
        quiet_ms.append(statistics.median(unwatched.times) * 1000)
        watched_ms.append(statistics.median(watched.times) * 1000)
        ratios.append(watched_ms[-1] / quiet_ms[-1])
        delays += delivered
        sizes.append(bytes_each)
    print(f"   no one watching          {statistics.median(quiet_ms):8.3f} ms median  (baseline)")
    print(f"   followed                 {statistics.median(watched_ms):8.3f} ms median")
    print(
        f"   ratio                    {statistics.median(ratios):8.2f} ×   "
        f"(per run: {', '.join(f'{r:.2f}' for r in ratios)})   target ≤ 1.5×"
    )
    if delays:
        p90 = statistics.quantiles(delays, n=10)[-1]
        print(
            f"   the last follower's update came {statistics.median(delays) * 1000:.1f} ms after "
            f"the answer (median; p90 {p90 * 1000:.1f} ms)"
        )
    print(f"   each follower read {statistics.median(sizes) / 1024:,.0f} KiB")


if __name__ == "__main__":
    main()
