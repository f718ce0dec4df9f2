"""League ratings: Bradley-Terry strengths on the Elo scale, with 95% intervals.

**The score of a pairing.** Poker has no win or loss per hand, only chips, so a pairing of
``first`` against ``second`` is scored over *blocks* of ``block`` consecutive hands (deals):
``first`` wins a block when its chips over the block sum above zero, loses it below zero,
and a block that sums to exactly zero (within 1e-9 bb) counts half (:func:`pair_result`).
With hands independent (stacks reset every hand) the blocks are independent trials, which
is what the Bradley-Terry model needs. A block's outcome is a coarser figure than the win
rate: it says *how often* ``first`` is ahead after ``block`` hands, not by how much; the
edge in bb/100 and its interval are kept beside it (:class:`PairResult`) for the table.
The rating gap therefore depends on the block size: a fixed edge wins long blocks more
often than short ones (the block's mean grows with ``block``, its spread with its square
root), so ratings are comparable only between leagues scored with the same ``block``.

**The model.** Player ``i`` has strength ``pi_i = exp(theta_i)``, and ``i`` wins a block
against ``j`` with probability ``pi_i / (pi_i + pi_j)``. The Elo of ``i`` is
``400 log10(pi_i)`` plus a constant, so a 400-point gap is 10:1 odds
(:func:`expected_score`).

**The fit.** :func:`bradley_terry` maximises the log-likelihood plus a weak prior: every
player also played ``prior_games`` virtual drawn blocks (half won, half lost) against a
fictitious player of fixed strength 1 (Elo 0 before anchoring). The prior keeps a player
who won (or lost) every block, or a group never compared with the rest, finite; with many
real blocks its pull is negligible. The maximum is found by Hunter's MM
(minorize-maximize) iteration (Hunter 2004, *Ann. Statist.* 32, 384)::

    pi_i <- W_i / (sum_j n_ij / (pi_i + pi_j) + g / (pi_i + 1))

with ``W_i`` the blocks ``i`` won plus ``g / 2``, ``n_ij`` the blocks ``i`` and ``j``
played and ``g = prior_games``; each step raises the objective from any start. Each MM step
is followed by the exact best common shift of all strengths (only the prior fixes where
they sit, and MM alone takes thousands of steps to pull them there). MM still crawls where
the prior alone pins a gap (a player who won every block), so once no log-strength moves by
more than ``MM_TOLERANCE`` (or after ``iterations`` steps) Newton's method, with steps
halved until they raise the objective, finishes the fit to ``TOLERANCE``; the objective is
strictly concave, so both reach the one maximum. The tests check the fit against a plain
gradient ascent and MM alone against Newton.

**The intervals.** The observed information ``H`` (minus the Hessian of the penalised
log-likelihood in ``theta``) is ``sum over pairs of n_ij p_ij (1 - p_ij)`` on the diagonal
and minus it off the diagonal, plus the prior's ``g p_i0 (1 - p_i0)`` on the diagonal; the
covariance of the estimates is ``H^-1`` (the normal, Laplace approximation). A rating is
reported relative to the ``anchor`` (its Elo fixed at ``anchor_elo``, zero width), so its
interval is for the difference ``theta_i - theta_anchor``: variance ``C_ii + C_aa - 2 C_ia``
(without the prior this is exactly the inverse of ``H`` with the anchor's row and column
removed, the usual "anchor fixed" interval). Without an anchor the ratings are centred so
their mean is ``anchor_elo``, and each interval is for ``theta_i`` minus the mean. The 95%
interval is +-1.96 standard errors, times ``400 / ln 10`` on the Elo scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.evaluate.match import Z95

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of ``theta`` (natural log of strength)."""
MM_TOLERANCE = 1e-4
"""The MM iteration hands over to Newton when no log-strength moves by more than this."""
TOLERANCE = 1e-12
"""The fit stops when no log-strength moves by more than this."""
MAX_NEWTON_STEPS = 100
"""Newton steps allowed after MM before the fit gives up (it needs a handful)."""
TIE_BB = 1e-9
"""A block whose chips sum to within this many big blinds of zero is a tie."""

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairResult:
    """One played pairing, scored for ``first``: blocks won (ties half) of blocks played,
    and the edge in bb/100 with its 95% half width (for the table)."""

    first: str
    second: str
    wins: float
    games: int
    bb_per_100: float
    bb_per_100_interval: float

    def __post_init__(self) -> None:
        if not self.first or not self.second:
            raise ValueError("a pairing needs two non-empty player names")
        if self.first == self.second:
            raise ValueError(f"a player cannot be paired with itself: {self.first!r}")
        if self.games < 1:
            raise ValueError(f"{self.first} vs {self.second}: games must be >= 1, not {self.games}")
        if not 0.0 <= self.wins <= self.games:
            raise ValueError(
                f"{self.first} vs {self.second}: wins must be in [0, {self.games}], not {self.wins}"
            )

    def as_dict(self) -> dict[str, str | float | int]:
        """Plain values for JSON."""
        return {
            "first": self.first,
            "second": self.second,
            "wins": self.wins,
            "games": self.games,
            "score": self.wins / self.games,
            "bb_per_100": self.bb_per_100,
            "bb_per_100_ci95": self.bb_per_100_interval,
        }


@dataclass(frozen=True)
class Rating:
    """A player's Elo with its 95% interval (relative to the anchor) and blocks played."""

    name: str
    elo: float
    low: float
    high: float
    games: int

    def as_dict(self) -> dict[str, str | float | int]:
        """Plain values for JSON."""
        return {
            "name": self.name,
            "elo": self.elo,
            "low": self.low,
            "high": self.high,
            "games": self.games,
        }


def pair_result(
    first: str, second: str, results_bb: npt.ArrayLike, *, block: int = 100
) -> PairResult:
    """Score ``first`` against ``second`` from ``first``'s per-hand (or per-deal) results in
    big blinds: blocks of ``block`` consecutive hands won, lost or tied (half).

    Hands after the last full block count in the bb/100 edge but not as a block. The edge's
    interval is +-1.96 standard errors over the hands, which assumes independent hands.
    """
    if block < 1:
        raise ValueError(f"block must be >= 1 hand, not {block}")
    values = np.asarray(results_bb, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"{first} vs {second}: results must be one number per hand")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{first} vs {second}: results must be finite numbers")
    blocks = values.size // block
    if blocks == 0:
        raise ValueError(
            f"{first} vs {second}: one block needs {block} hands, only {values.size} given"
        )
    sums = values[: blocks * block].reshape(blocks, block).sum(axis=1)
    ties = np.abs(sums) <= TIE_BB
    wins = float(np.count_nonzero((sums > 0) & ~ties)) + 0.5 * float(np.count_nonzero(ties))
    spread = float(values.std(ddof=1)) if values.size > 1 else math.inf
    return PairResult(
        first=first,
        second=second,
        wins=wins,
        games=blocks,
        bb_per_100=100.0 * float(values.mean()),
        bb_per_100_interval=100.0 * Z95 * spread / math.sqrt(values.size),
    )


def expected_score(elo_a: float, elo_b: float) -> float:
    """The chance that a player rated ``elo_a`` wins a block against one rated ``elo_b``."""
    return 1.0 / (1.0 + math.pow(10.0, min((elo_b - elo_a) / 400.0, 300.0)))


@dataclass(frozen=True)
class League:
    """Pairings gathered into matrices over the players (in first-seen order)."""

    names: tuple[str, ...]
    wins: Floats
    """``wins[i, j]``: blocks ``i`` won against ``j`` (ties half)."""
    games: Floats
    """``games[i, j]``: blocks ``i`` and ``j`` played (symmetric)."""


def gather(pairs: Sequence[PairResult]) -> League:
    """The league's win and game matrices; repeated or reversed pairings add up."""
    if not pairs:
        raise ValueError("ratings need at least one pairing")
    names = tuple(dict.fromkeys(name for pair in pairs for name in (pair.first, pair.second)))
    index = {name: i for i, name in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    games = np.zeros_like(wins)
    for pair in pairs:
        i, j = index[pair.first], index[pair.second]
        wins[i, j] += pair.wins
        wins[j, i] += pair.games - pair.wins
        games[i, j] += pair.games
        games[j, i] += pair.games
    return League(names, wins, games)


def mm_strengths(
    league: League, prior_games: float, iterations: int, tolerance: float = 0.0
) -> Floats:
    """Log-strengths ``theta`` from at most ``iterations`` steps of Hunter's MM iteration
    (module docstring), each followed by the exact best common shift; it stops early when
    no ``theta`` moves by more than ``tolerance``. The prior player has ``theta = 0``."""
    won = league.wins.sum(axis=1) + prior_games / 2
    theta = np.zeros(len(league.names))
    for _ in range(iterations):
        strength = np.exp(theta)
        pair_sums = strength[:, None] + strength[None, :]
        denominator = (league.games / pair_sums).sum(axis=1) + prior_games / (strength + 1.0)
        updated = np.log(won / denominator)
        updated += best_shift(updated)
        step = float(np.max(np.abs(updated - theta)))
        theta = updated
        if step <= tolerance:
            break
    return theta


def penalised_log_likelihood(league: League, theta: Floats, prior_games: float) -> float:
    """The log-likelihood of the blocks plus the prior's virtual drawn blocks."""
    gaps = theta[:, None] - theta[None, :]
    real = -float(np.sum(league.wins * np.logaddexp(0.0, -gaps)))
    prior = -prior_games * float(
        np.sum(0.5 * np.logaddexp(0.0, -theta) + 0.5 * np.logaddexp(0.0, theta))
    )
    return real + prior


def score_gradient(league: League, theta: Floats, prior_games: float) -> Floats:
    """The gradient of :func:`penalised_log_likelihood` in ``theta``: blocks won minus
    blocks expected, the prior's included."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    prior = 1.0 / (1.0 + np.exp(-theta))
    result: Floats = league.wins.sum(axis=1) - (league.games * p).sum(axis=1)
    return result + prior_games * (0.5 - prior)


def newton_finish(league: League, theta: Floats, prior_games: float) -> Floats:
    """Newton steps on the (strictly concave) penalised log-likelihood from ``theta``,
    halved until they raise it, until no ``theta`` moves by more than ``TOLERANCE``."""
    value = penalised_log_likelihood(league, theta, prior_games)
    for _ in range(MAX_NEWTON_STEPS):
        step = np.linalg.solve(
            information(league, theta, prior_games), score_gradient(league, theta, prior_games)
        )
        for _ in range(60):
            candidate = theta + step
            candidate_value = penalised_log_likelihood(league, candidate, prior_games)
            if candidate_value >= value - 1e-12 * abs(value):
                break
            step = step / 2
        theta, value = candidate, candidate_value
        if float(np.max(np.abs(step))) < TOLERANCE:
            return theta
    raise ArithmeticError(f"Bradley-Terry fit did not converge in {MAX_NEWTON_STEPS} Newton steps")


def best_shift(theta: Floats) -> float:
    """The common shift ``s`` of all log-strengths that maximises the penalised likelihood.

    The likelihood of the real blocks does not change when every ``theta`` moves by the same
    amount; only the prior does, so the best ``s`` solves ``sum_i sigmoid(theta_i + s) = n/2``
    (Newton's method on a monotone function, from ``s = -median``). Taking this exact step
    after each MM step keeps the ascent monotone and removes MM's slowest direction, which
    the weak prior alone would otherwise pull in over thousands of iterations.
    """
    shift = -float(np.median(theta))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(theta + shift)))
        slope = float(np.sum(p * (1.0 - p)))
        move = float(np.sum(0.5 - p)) / slope
        shift += move
        if abs(move) < TOLERANCE:
            break
    return shift


def information(league: League, theta: Floats, prior_games: float) -> Floats:
    """The observed information: minus the Hessian of the penalised log-likelihood."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    weight = league.games * p * (1.0 - p)
    prior = 1.0 / (1.0 + np.exp(-theta))
    diagonal = weight.sum(axis=1) + prior_games * prior * (1.0 - prior)
    result: Floats = np.diag(diagonal) - weight
    return result


def bradley_terry(
    pairs: Sequence[PairResult],
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    iterations: int = 1000,
    prior_games: float = 1.0,
) -> list[Rating]:
    """Bradley-Terry ratings on the Elo scale with 95% intervals, best first (see the module
    docstring for the score, the prior and the intervals).

    ``anchor`` names the player whose Elo is fixed at ``anchor_elo`` (its interval has zero
    width, the others' are for their difference to it); without one, the ratings' mean is
    ``anchor_elo``. ``prior_games`` (> 0) virtual drawn blocks against an average player
    keep every rating finite. ``iterations`` caps the MM steps before Newton's method
    finishes the fit.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, not {iterations}")
    if not prior_games > 0:
        raise ValueError(
            f"prior_games must be > 0 (it keeps unbeaten players finite), not {prior_games}"
        )
    league = gather(pairs)
    if anchor is not None and anchor not in league.names:
        raise ValueError(
            f"anchor {anchor!r} played no pairing; players: {', '.join(sorted(league.names))}"
        )
    theta = newton_finish(
        league, mm_strengths(league, prior_games, iterations, MM_TOLERANCE), prior_games
    )
    covariance = np.linalg.inv(information(league, theta, prior_games))
    count = len(league.names)
    if anchor is None:
        contrast = np.eye(count) - np.full((count, count), 1.0 / count)
    else:
        contrast = np.eye(count)
        contrast[:, league.names.index(anchor)] -= 1.0
    centred = contrast @ theta
    variances = np.einsum("ij,jk,ik->i", contrast, covariance, contrast)
    half_widths = Z95 * ELO_PER_NAT * np.sqrt(np.clip(variances, 0.0, None))
    games = league.games.sum(axis=1)
    ratings = [
        Rating(
            name=name,
            elo=anchor_elo + ELO_PER_NAT * float(centred[i]),
            low=anchor_elo + ELO_PER_NAT * float(centred[i]) - float(half_widths[i]),
            high=anchor_elo + ELO_PER_NAT * float(centred[i]) + float(half_widths[i]),
            games=round(float(games[i])),
        )
        for i, name in enumerate(league.names)
    ]
    return sorted(ratings, key=lambda rating: (-rating.elo, rating.name))


def elo_table(ratings: Sequence[Rating], pairs: Sequence[PairResult]) -> str:
    """A fixed-width text table: the ratings (rank, Elo, 95% interval, blocks, score), then
    every pairing (blocks, score, edge in bb/100 with its 95% half width)."""
    won: dict[str, float] = {}
    played: dict[str, int] = {}
    for pair in pairs:
        for name, wins in ((pair.first, pair.wins), (pair.second, pair.games - pair.wins)):
            won[name] = won.get(name, 0.0) + wins
            played[name] = played.get(name, 0) + pair.games
    width = max([6, *(len(r.name) for r in ratings), *(len(p.first) for p in pairs)])
    second_width = max([6, *(len(p.second) for p in pairs)])
    lines = [
        f"{'rank':>4}  {'player':<{width}}  {'Elo':>7}  {'95% interval':>18}  "
        f"{'blocks':>7}  {'score':>6}"
    ]
    for rank, rating in enumerate(ratings, start=1):
        score = won.get(rating.name, 0.0) / played[rating.name] if played.get(rating.name) else 0
        lines.append(
            f"{rank:>4}  {rating.name:<{width}}  {rating.elo:>+7.1f}  "
            f"[{rating.low:>+7.1f}, {rating.high:>+7.1f}]  {rating.games:>7,}  {score:>6.1%}"
        )
    lines += [
        "",
        "score: share of blocks won (ties half); bb/100: first's edge, +- its 95% half width",
        f"{'first':<{width}}  {'second':<{second_width}}  {'blocks':>7}  {'score':>6}  "
        f"{'bb/100':>17}",
    ]
    for pair in pairs:
        edge = f"{pair.bb_per_100:+.1f} +- {pair.bb_per_100_interval:.1f}"
        lines.append(
            f"{pair.first:<{width}}  {pair.second:<{second_width}}  {pair.games:>7,}  "
            f"{pair.wins / pair.games:>6.1%}  {edge:>17}"
        )
    return "\n".join(lines)
