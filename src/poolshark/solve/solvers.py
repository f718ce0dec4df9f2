"""Three ways to solve shove/fold: an exact linear program, gradient descent, fictitious play.

All three work on :class:`~poolshark.solve.shove_fold.Payoffs` and return a
:class:`Solution` whose exploitability is measured by the exact best response.

* ``solve_exact``: suits are symmetric, so some equilibrium plays every combo of a class
  alike. On the 169 classes (with exact combo counts and card removal in the class sums)
  each player's maximin strategy is one small linear program, solved by HiGHS.
* ``solve_gradient``: the idea of seed 002, for both seats. Each strategy is a sigmoid of
  one logit per combo; each seat minimizes its opponent's best-response value (a maximum
  of linear functions, so its gradient is the best response's), with Adam, in torch.
* ``solve_fictitious``: each seat best-responds to the other's running average; the
  averages converge to an equilibrium. Run on the class sums, where a best response to a
  symmetric strategy is itself symmetric, so it costs a 169x169 product per step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import linprog

from poolshark.cards.combos import CLASS_SIZE, N_CLASSES, N_COMBOS

if TYPE_CHECKING:
    import torch
from poolshark.solve.shove_fold import (
    Exploitability,
    Payoffs,
    Vector,
    class_sums,
    per_combo,
)


@dataclass(frozen=True)
class Solution:
    """Both strategies (per combo), their exact exploitability and how they were found."""

    method: str
    shove: Vector
    call: Vector
    exploitability: Exploitability
    seconds: float
    curve: list[tuple[int, float]] = field(default_factory=list)  # (iteration, exploitability)


def _class_problem(payoffs: Payoffs) -> tuple[Vector, Vector]:
    """Class-level gain (169,) and call matrix (169, 169) for symmetric strategies."""
    gain = payoffs.gain[0] * CLASS_SIZE.astype(np.float64)
    return gain, class_sums(payoffs.call_matrix)


def solve_exact(payoffs: Payoffs) -> Solution:
    """Equilibrium by linear programming over the 169 classes (milliseconds)."""
    started = time.perf_counter()
    gain, call_matrix = _class_problem(payoffs)
    n = N_CLASSES
    eye = np.eye(n)
    # Small blind: max gain.s + sum(t) with t <= 0 and t <= (s @ M) per big-blind class.
    shove_lp = linprog(
        c=-np.concatenate([gain, np.ones(n)]),
        A_ub=np.hstack([-call_matrix.T, eye]),
        b_ub=np.zeros(n),
        bounds=[(0, 1)] * n + [(None, 0)] * n,
        method="highs",
    )
    # Big blind: min sum(u) with u >= 0 and u >= gain + M @ c per small-blind class.
    call_lp = linprog(
        c=np.concatenate([np.zeros(n), np.ones(n)]),
        A_ub=np.hstack([call_matrix, -eye]),
        b_ub=-gain,
        bounds=[(0, 1)] * n + [(0, None)] * n,
        method="highs",
    )
    if shove_lp.status != 0 or call_lp.status != 0:
        raise RuntimeError(f"linear program failed: {shove_lp.message} / {call_lp.message}")
    shove = per_combo(np.clip(shove_lp.x[:n], 0, 1))
    call = per_combo(np.clip(call_lp.x[:n], 0, 1))
    seconds = time.perf_counter() - started
    return Solution("exact", shove, call, payoffs.exploitability(shove, call), seconds)


def solve_gradient(
    payoffs: Payoffs,
    *,
    iterations: int = 3000,
    learning_rate: float = 0.1,
    seed: int = 0,
    record_every: int = 50,
    device: str = "cpu",
) -> Solution:
    """Both seats by gradient descent on the opponent's best-response value (torch)."""
    started = time.perf_counter()
    import torch  # lazy: torch; CLI starts fast

    generator = torch.Generator().manual_seed(seed)
    call_matrix = torch.as_tensor(payoffs.call_matrix, device=device)
    gain = torch.as_tensor(payoffs.gain, device=device)
    shove_logits = (0.01 * torch.randn(N_COMBOS, generator=generator, dtype=torch.float64)).to(
        device
    )
    call_logits = (0.01 * torch.randn(N_COMBOS, generator=generator, dtype=torch.float64)).to(
        device
    )
    shove_logits.requires_grad_(True)
    call_logits.requires_grad_(True)
    optimizer = torch.optim.Adam([shove_logits, call_logits], lr=learning_rate)
    curve: list[tuple[int, float]] = []
    for step in range(iterations + 1):
        shove, call = torch.sigmoid(shove_logits), torch.sigmoid(call_logits)
        if _record(step, record_every) or step == iterations:
            measured = payoffs.exploitability(_numpy(shove), _numpy(call))
            curve.append((step, measured.total))
        if step == iterations:
            break
        # What each seat's best-responding opponent would get; each seat minimizes it.
        sb_exploited = -torch.clamp(shove @ call_matrix, max=0).sum() - gain @ shove
        bb_exploited = torch.clamp(gain + call_matrix @ call, min=0).sum()
        optimizer.zero_grad()
        (sb_exploited + bb_exploited).backward()  # type: ignore[no-untyped-call]
        optimizer.step()
    shove_np, call_np = _numpy(torch.sigmoid(shove_logits)), _numpy(torch.sigmoid(call_logits))
    seconds = time.perf_counter() - started
    exploitability = payoffs.exploitability(shove_np, call_np)
    return Solution("gradient", shove_np, call_np, exploitability, seconds, curve)


def solve_fictitious(
    payoffs: Payoffs, *, iterations: int = 20000, record_every: int = 500
) -> Solution:
    """Both seats by simultaneous fictitious play on the class sums."""
    started = time.perf_counter()
    gain, call_matrix = _class_problem(payoffs)
    shove = np.zeros(N_CLASSES)
    call = np.zeros(N_CLASSES)
    curve: list[tuple[int, float]] = []
    for step in range(1, iterations + 1):
        best_shove = (gain + call_matrix @ call > 0).astype(np.float64)
        best_call = (shove @ call_matrix < 0).astype(np.float64)
        shove += (best_shove - shove) / step
        call += (best_call - call) / step
        if _record(step, record_every) or step == iterations:
            curve.append((step, payoffs.exploitability(per_combo(shove), per_combo(call)).total))
    shove_c, call_c = per_combo(shove), per_combo(call)
    seconds = time.perf_counter() - started
    exploitability = payoffs.exploitability(shove_c, call_c)
    return Solution("fictitious", shove_c, call_c, exploitability, seconds, curve)


def _record(step: int, every: int) -> bool:
    """Whether to measure at this step: powers of two early, then every ``every`` steps."""
    return step % every == 0 or (step & (step - 1) == 0)


def _numpy(tensor: torch.Tensor) -> Vector:
    """A detached float64 numpy copy of a tensor."""
    return np.asarray(tensor.detach().cpu().numpy(), dtype=np.float64)


SOLVERS = ("exact", "gradient", "fictitious")
"""Solver names, as the CLI takes them."""


def solve(payoffs: Payoffs, method: str = "exact", *, seed: int = 0) -> Solution:
    """Solve with the named method (``seed`` matters only to the gradient method)."""
    if method == "exact":
        return solve_exact(payoffs)
    if method == "gradient":
        return solve_gradient(payoffs, seed=seed)
    if method == "fictitious":
        return solve_fictitious(payoffs)
    raise ValueError(f"unknown method {method!r}: use one of {', '.join(SOLVERS)}")
