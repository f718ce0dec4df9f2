"""Web load test: N simulated players at once against ``poolshark web`` on loopback.

Run from the repository root::

    python benchmarks/web_load.py [--quick] [--players 50] [--seconds 60] [--agent tag]
        [--agent-spec NAME=SPEC] [--seats 2] [--think-ms 250] [--clients 4] [--seed N]
        [--json]

The server runs as a subprocess (``poolshark web`` on a free loopback port) and the
players in ``--clients`` processes of their own, so the server's event loop shares no
interpreter with them and one client process does not hold back fifty players'
requests. Each player (an ``httpx.AsyncClient`` task) opens a session against the agent,
then plays until the time is up: a seeded random legal action (check or call 65%, a raise between
the minimum and a pot-sized raise 25%, fold 10% when facing a bet) after ``think_ms``
milliseconds of thought, the next hand when one ends, a new session when one has played
its hands. The action latency is the round trip of ``POST /api/play/{id}/act``: the
engine applying the player's action, and the agents answering until it is the player's
turn again (batched across sessions). ``--agent-spec pop=runs/x/best.pt --agent pop``
measures a population-model checkpoint.

The last line printed is one JSON object with these keys:

* ``players``, ``client_processes``, ``seconds``, ``think_ms``, ``agent``, ``seats``: the workload;
* ``load_average_before``, ``load_average_after``: the machine's one-minute load average
  before the server starts and after the run (this benchmark's own processes count
  after), since on a shared machine the latencies follow it;
* ``actions``, ``hands``, ``errors``: requests answered, hands dealt, failed requests;
* ``act_p50_ms``, ``act_p95_ms``, ``act_p99_ms``, ``act_max_ms``: action latency;
* ``server_act_p50_ms``, ``server_act_p95_ms``: the server's own time on an action (its
  ``Server-Timing`` header), so client-side queueing shows as the difference;
* ``next_p95_ms``: latency of dealing the next hand (agents acting first included);
* ``actions_per_s``: player actions per second over the run;
* ``agent_decisions_per_call``: the agent's decisions per ``act`` call (the batching);
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from common import emit, print_table

ROOT = Path(__file__).resolve().parents[1]


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 players for 15 s")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--agent", default="tag", help="catalogue name the players face")
    parser.add_argument(
        "--agent-spec", action="append", default=[], help="NAME=SPEC passed to the server"
    )
    parser.add_argument("--seats", type=int, choices=(2, 6), default=2)
    parser.add_argument("--think-ms", type=float, default=250.0)
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    args = parser.parse_args()
    if args.quick:
        args.players, args.seconds = min(args.players, 10), min(args.seconds, 15.0)
    return args


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(port: int, players: int, specs: list[str]) -> subprocess.Popen[bytes]:
    launch = "from poolshark.cli import main; main()"
    command = [sys.executable, "-c", launch, "web", "--port", str(port)]
    command += ["--max-sessions", str(2 * players + 4), "--max-hands", "100000"]
    for spec in specs:
        command += ["--agent", spec]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)


async def wait_ready(client: httpx.AsyncClient, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with status {server.returncode}")
        try:
            if (await client.get("/api/health")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the server did not answer within 180 s")


def choose(legal: dict[str, Any], pot: int, rng: random.Random) -> dict[str, Any]:
    """A random legal action (the load test's player)."""
    u = rng.random()
    if legal["fold"] and u < 0.10:
        return {"move": "fold"}
    low, high = legal["min_raise_to"], legal["max_raise_to"]
    if low is not None and u > 0.75:
        top = max(low, min(high, legal["current_bet"] + pot + legal["call"]))
        return {"move": "raise", "amount": rng.randint(low, top)}
    return {"move": "call" if legal["call"] else "check"}


class Tally:
    """Latencies and errors of every player."""

    def __init__(self) -> None:
        self.act: list[float] = []
        self.server: list[float] = []  # the server's own time on each action (Server-Timing)
        self.next: list[float] = []
        self.errors: list[str] = []
        self.hands = 0


async def player(
    client: httpx.AsyncClient, args: argparse.Namespace, index: int, stop: float, tally: Tally
) -> None:
    rng = random.Random(args.seed * 100_003 + index)
    body = {"opponents": [args.agent], "seats": args.seats}
    view: dict[str, Any] | None = None
    while time.monotonic() < stop:
        try:
            if view is None:
                response = await client.post("/api/play", json=body)
                response.raise_for_status()
                view, tally.hands = response.json(), tally.hands + 1
                continue
            if view["hand_over"]:
                if view["hand"] >= view["max_hands"]:
                    view = None
                    continue
                start = time.perf_counter()
                response = await client.post(f"/api/play/{view['id']}/next")
                response.raise_for_status()
                tally.next.append(time.perf_counter() - start)
                view, tally.hands = response.json(), tally.hands + 1
                continue
            await asyncio.sleep(rng.uniform(0.5, 1.5) * args.think_ms / 1000)
            action = choose(view["legal"], view["pot"], rng)
            start = time.perf_counter()
            response = await client.post(f"/api/play/{view['id']}/act", json=action)
            response.raise_for_status()
            tally.act.append(time.perf_counter() - start)
            timing = response.headers.get("server-timing", "dur=nan")
            tally.server.append(float(timing.rpartition("dur=")[2]) / 1000)
            view = response.json()
        except (httpx.HTTPError, KeyError, TypeError) as error:
            detail = error.response.text[:200] if isinstance(error, httpx.HTTPStatusError) else ""
            tally.errors.append(f"{type(error).__name__}: {error} {detail}")
            view = None
            await asyncio.sleep(0.1)


def milliseconds(values: list[float], q: float) -> float:
    return float(np.percentile(values, q) * 1000) if values else float("nan")


async def play_some(base_url: str, args: argparse.Namespace, players: range) -> Tally:
    """Players ``players`` (their indices seed them) until the time is up."""
    limits = httpx.Limits(max_connections=len(players) + 4, max_keepalive_connections=len(players))
    tally = Tally()
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:
        stop = time.monotonic() + args.seconds
        await asyncio.gather(*(player(client, args, i, stop, tally) for i in players))
    return tally


def client_process(base_url: str, args: argparse.Namespace, players: range) -> Tally:
    """One client process's share of the players (a process of its own, as real players'
    browsers are: one Python client cannot issue fifty players' requests on time)."""
    return asyncio.run(play_some(base_url, args, players))


async def warm_up(base_url: str, args: argparse.Namespace, server: subprocess.Popen[bytes]) -> None:
    """Wait for the server; one session loads the agent and compiles the engine's kernels."""
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
        await wait_ready(client, server)
        warm = await client.post("/api/play", json={"opponents": [args.agent], "seats": args.seats})
        warm.raise_for_status()
        await client.delete(f"/api/sessions/{warm.json()['id']}")


def run(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    load_before = os.getloadavg()[0]
    server = start_server(port, args.players, args.agent_spec)
    try:
        asyncio.run(warm_up(base_url, args, server))
        shares = [range(k, args.players, args.clients) for k in range(args.clients)]
        began = time.monotonic()
        with ProcessPoolExecutor(args.clients) as pool:
            tallies = list(
                pool.map(client_process, [base_url] * len(shares), [args] * len(shares), shares)
            )
        elapsed = time.monotonic() - began
        health = httpx.get(base_url + "/api/health", timeout=30).json()
    finally:
        server.terminate()
        server.wait(timeout=30)
    tally = Tally()
    for part in tallies:
        tally.act += part.act
        tally.server += part.server
        tally.next += part.next
        tally.errors += part.errors
        tally.hands += part.hands
    counts = health["agents"].get(args.agent, {"calls": 0, "decisions": 0})
    return {
        "players": args.players,
        "client_processes": args.clients,
        "seconds": round(elapsed, 1),
        "think_ms": args.think_ms,
        "agent": args.agent,
        "seats": args.seats,
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "actions": len(tally.act),
        "hands": tally.hands,
        "errors": len(tally.errors),
        "first_error": tally.errors[0] if tally.errors else None,
        "act_p50_ms": round(milliseconds(tally.act, 50), 2),
        "act_p95_ms": round(milliseconds(tally.act, 95), 2),
        "act_p99_ms": round(milliseconds(tally.act, 99), 2),
        "act_max_ms": round(max(tally.act, default=float("nan")) * 1000, 2),
        "server_act_p50_ms": round(milliseconds(tally.server, 50), 2),
        "server_act_p95_ms": round(milliseconds(tally.server, 95), 2),
        "next_p95_ms": round(milliseconds(tally.next, 95), 2),
        "actions_per_s": round(len(tally.act) / elapsed, 1),
        "agent_decisions_per_call": round(counts["decisions"] / max(counts["calls"], 1), 2),
        "quick": args.quick,
        "seed": args.seed,
    }


def main() -> None:
    args = options()
    figures = run(args)
    if not args.json:
        print_table(
            f"poolshark web under load: {figures['players']} players against "
            f"{figures['agent']} ({figures['seats']} seats), {figures['seconds']} s, "
            f"think {figures['think_ms']:g} ms",
            ["figure", "value"],
            [[key, value] for key, value in figures.items() if key not in ("quick", "seed")],
        )
    emit(figures)


if __name__ == "__main__":
    main()
