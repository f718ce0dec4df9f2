"""Fit a pool to real hands by matching spot statistics.

A fitted pool is a mix of shipped styles with per-style parameter overrides (see
:mod:`poolshark.pool.pools`). The fitter simulates a candidate pool with a fixed seed
(common random numbers: every candidate plays the same deals and the same seating draws,
so small parameter changes give small changes in the statistics), tallies the same
statistics as the real rows (:mod:`poolshark.pool.spots` and the HUD's VPIP, PFR, WTSD,
W$SD), and minimizes the mean squared z-score

    z = (simulated - real) / se,   se = (high - low) / (2 * 1.96)

over every statistic with at least ``min_count`` real opportunities, where [low, high] is
the real statistic's 95% Wilson interval. The search is a seeded coordinate search in
normalized parameter units (each parameter mapped onto [0, 1] by its bounds) with a step
per coordinate: in a random order, try a step up and then down along each coordinate; a
move that improves is kept and doubles that coordinate's step (up to 1/4), a coordinate
where neither improves halves it (the first step is 1/16); when every step is below 1/256
the steps start again, and the search stops at the evaluation budget or when a restart
finds nothing better. It needs no derivatives and shrugs off invalid
candidates (a style that fails validation scores infinity).

A parameter is ``ENTRY:PATH`` (a mix entry and a dotted path into the style schema, e.g.
``tag:postflop.fold_to_cbet``), ``*:PATH`` (a shift added to every style's own value, so
the styles keep their differences; each result is clipped to the schema's bounds), or
``mix:ENTRY`` (the entry's mix weight); ``=LOW:HIGH`` after it sets the search bounds,
which otherwise come from the schema (ranges are percentages in [0, 100]; a shift ranges
over plus or minus half the schema's span).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from poolshark.cards.combos import N_COMBOS
from poolshark.pool.pools import Pool, PoolError, PoolSpec, build_pool
from poolshark.pool.simulate import simulate
from poolshark.pool.stats import (
    FileTally,
    HudStat,
    Tally,
    history_files,
    spot_statistics,
    spot_tally_hands,
    statistics,
    tally_files,
    tally_hands,
)
from poolshark.pool.style import StyleError, StyleSpec, range_weights

FIT_HUD = ("vpip", "pfr", "wtsd", "wsd")
"""HUD statistics fitted beside the spots (the rest are coarser forms of spot statistics)."""
ALL_STYLES = "*"
MIX = "mix"
MIN_WEIGHT = 0.01
ROUND = 4
"""Decimals of fitted values (the written pool file plays exactly the fitted figures)."""
FIT_TABLES = 16
"""Tables a candidate is simulated on. The simulator hands back hands as they finish, so
with many tables and few hands each, quick hands (a fold round, a walk) come first and are
over-represented: at 8,000 hands on 256 tables VPIP came out 0.25 points and WTSD 0.6
points under a 64,000-hand run; on 16 tables that bias is gone, and the run is faster."""
FIRST_STEP, MAX_STEP, LAST_STEP = 1 / 16, 1 / 4, 1 / 256
"""The coordinate search's step, in units of a parameter's span: first, largest, last."""


class FitError(ValueError):
    """A fit that cannot run as asked; the message says why."""


@dataclass(frozen=True)
class FitParameter:
    """One searched number within [low, high]: a style parameter of one entry, a shift added
    to every style's own value (``entry == "*"``; each result clipped to [floor, ceiling],
    the schema's bounds), or a mix weight (``entry == "mix"``, ``path`` the mix entry)."""

    entry: str
    path: str
    low: float
    high: float
    floor: float = -math.inf
    ceiling: float = math.inf

    @property
    def name(self) -> str:
        """``ENTRY:PATH`` as given."""
        return f"{self.entry}:{self.path}"


def parse_parameter(text: str) -> FitParameter:
    """``ENTRY:PATH``, ``*:PATH`` or ``mix:ENTRY``, optionally ``=LOW:HIGH``."""
    spec, _, bounds = text.strip().partition("=")
    entry, colon, path = spec.partition(":")
    if not colon or not entry or not path:
        raise FitError(f"parameter {text!r}: write ENTRY:PATH, *:PATH or mix:ENTRY")
    if entry == MIX:
        floor, ceiling = MIN_WEIGHT, 1.0
    else:
        floor, ceiling = schema_bounds(path)  # also checks the path
    low, high = floor, ceiling
    if entry == ALL_STYLES:
        low, high = -(ceiling - floor) / 2, (ceiling - floor) / 2
    if bounds:
        try:
            low, high = (float(x) for x in bounds.split(":"))
        except ValueError:
            raise FitError(f"parameter {text!r}: bounds are =LOW:HIGH (two numbers)") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise FitError(f"parameter {text!r}: bounds {low} to {high} are not an interval")
    return FitParameter(entry, path, low, high, floor, ceiling)


def read_parameters(texts: Iterable[str]) -> list[FitParameter]:
    """Parameters from lines (blank lines and ``#`` comments skipped); no repeats."""
    found: list[FitParameter] = []
    for line in texts:
        line = line.split("#", 1)[0].strip()
        if line:
            found.append(parse_parameter(line))
    names = [p.name for p in found]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise FitError(f"parameter {repeated[0]} given twice")
    return found


def schema_bounds(path: str) -> tuple[float, float]:
    """The bounds the style schema puts on a numeric parameter (ranges: [0, 100])."""
    parts = path.split(".")
    model: type[BaseModel] = StyleSpec
    for depth, part in enumerate(parts):
        fields = {info.alias or name: info for name, info in model.model_fields.items()}
        if part not in fields:
            where = ".".join(parts[:depth]) or "a style"
            raise FitError(f"parameter {path}: no field {part!r} in {where}")
        info = fields[part]
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
            continue
        rest = parts[depth + 1 :]
        if part in ("open", "limp") and model.__name__ == "Preflop" and len(rest) == 1:
            return 0.0, 100.0
        if rest:
            raise FitError(f"parameter {path}: {'.'.join(parts[: depth + 1])} has no fields")
        if annotation is not None and str in getattr(annotation, "__args__", ()):
            return 0.0, 100.0  # a range: a percentage of hands
        low, high = -math.inf, math.inf
        for bound in info.metadata:  # annotated_types Ge / Gt / Le / Lt
            low = float(getattr(bound, "ge", getattr(bound, "gt", low)))
            high = float(getattr(bound, "le", getattr(bound, "lt", high)))
        if not (math.isfinite(low) and math.isfinite(high)):
            raise FitError(f"parameter {path}: the schema does not bound it; give =LOW:HIGH")
        return low, high
    raise FitError(f"parameter {path}: a group of parameters, not one number")


# -- candidates ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """Where a search starts: each parameter's value (0 for a shift) and, per shift, every
    mix entry's own value it is added to."""

    values: list[float]
    bases: list[dict[str, float]]


def start_point(spec: PoolSpec, folder: Path | None, params: list[FitParameter]) -> Start:
    """Each parameter's value in ``spec`` (ranges as percentages, clipped to the bounds);
    fails naming the parameter if a style lacks its path or the entry is not in the mix."""
    pool = _build(spec, folder)
    entries = list(spec.mix)
    values, bases = [], []
    for param in params:
        base: dict[str, float] = {}
        if param.entry == MIX:
            if param.path not in spec.mix:
                raise FitError(f"parameter {param.name}: {param.path!r} is not in the mix")
            value = spec.mix[param.path] / max(spec.mix.values())
        elif param.entry == ALL_STYLES:
            base = {
                e: _number(style.spec, param) for e, style in zip(entries, pool.styles, strict=True)
            }
            value = 0.0
        else:
            if param.entry not in spec.mix:
                raise FitError(f"parameter {param.name}: {param.entry!r} is not in the mix")
            value = _number(pool.styles[entries.index(param.entry)].spec, param)
        values.append(min(param.high, max(param.low, value)))
        bases.append(base)
    return Start(values, bases)


def _number(style: StyleSpec, param: FitParameter) -> float:
    """A style's value at ``param.path`` as a number (a range: its percentage of hands)."""
    node: Any = style.model_dump(by_alias=True)
    for part in param.path.split("."):
        node = node.get(part, 0.0) if isinstance(node, dict) else None
        if node is None:
            raise FitError(f"parameter {param.name}: no such parameter in {style.name}")
    if isinstance(node, str):
        return float(range_weights(node).sum() / N_COMBOS * 100.0)
    if isinstance(node, bool) or not isinstance(node, int | float):
        raise FitError(f"parameter {param.name}: {node!r} is not a number")
    return float(node)


def candidate(
    spec: PoolSpec, params: list[FitParameter], start: Start, values: Iterable[float]
) -> PoolSpec:
    """``spec`` with each parameter set to its value (a shift: added to each style's own
    value and clipped); every number rounded to :data:`ROUND` decimals."""
    mix = dict(spec.mix)
    styles = {entry: dict(overrides) for entry, overrides in spec.styles.items()}
    for param, base, raw in zip(params, start.bases, values, strict=True):
        value = float(raw)
        if param.entry == MIX:
            mix[param.path] = round(value, ROUND)
        elif param.entry == ALL_STYLES:
            for entry, own in base.items():
                shifted = min(param.ceiling, max(param.floor, own + value))
                styles.setdefault(entry, {})[param.path] = round(shifted, ROUND)
        else:
            styles.setdefault(param.entry, {})[param.path] = round(value, ROUND)
    total = sum(mix.values())
    mix = {entry: round(w / total, ROUND) for entry, w in mix.items()}
    return spec.model_copy(update={"mix": mix, "styles": styles})


def _build(spec: PoolSpec, folder: Path | None) -> Pool:
    try:
        return build_pool(PoolSpec.model_validate(spec.model_dump()), folder)
    except (PoolError, StyleError) as error:
        raise FitError(str(error)) from None


# -- statistics ---------------------------------------------------------------------------


def fit_statistics(hud: Tally, spots: Tally) -> dict[str, HudStat]:
    """The statistics a fit matches: :data:`FIT_HUD` and every spot statistic."""
    figures = statistics(hud)
    return {name: figures[name] for name in FIT_HUD} | spot_statistics(spots)


def real_statistics(
    paths: Iterable[str | Path], progress: Callable[[Path, int], None] | None = None
) -> tuple[dict[str, HudStat], FileTally]:
    """The fitted statistics of every hand in history files or folders (what ``poolshark
    stats`` reads), and the file tally (hands read, rejected)."""
    result = tally_files(history_files(paths), progress)
    if result.tally.hands == 0:
        raise FitError("no hand in the rows could be read")
    return fit_statistics(result.tally, result.spots), result


def simulated_statistics(
    spec: PoolSpec, folder: Path | None, hands: int, seed: int, tables: int = FIT_TABLES
) -> dict[str, HudStat]:
    """The fitted statistics of ``hands`` simulated hands of ``spec`` with ``seed``."""
    played = simulate(_build(spec, folder), hands, seed=seed, tables=tables)
    return fit_statistics(tally_hands(played), spot_tally_hands(played))


def z_score(real: HudStat, simulated: HudStat) -> float:
    """(simulated - real) over the real statistic's standard error (from its interval)."""
    assert real.value is not None
    assert real.low is not None
    assert real.high is not None
    if simulated.value is None:
        return math.inf
    se = (real.high - real.low) / (2 * 1.959963984540054)
    return (simulated.value - real.value) / se


def fitted_names(
    real: dict[str, HudStat], simulated: dict[str, HudStat], min_count: int
) -> list[str]:
    """Statistics with at least ``min_count`` real opportunities that the simulated game
    offers at all (a spot six-max never deals, such as a cold call from EP, is left out)."""
    return [
        name for name, stat in real.items() if stat.count >= min_count and simulated[name].count > 0
    ]


def distance(real: dict[str, HudStat], simulated: dict[str, HudStat], names: list[str]) -> float:
    """Mean squared z-score over ``names``."""
    return float(np.mean([z_score(real[n], simulated[n]) ** 2 for n in names]))


# -- the search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class StatLine:
    """One statistic of the report: real figure and interval, the fitted pool's, the z-score,
    whether it lies inside the real interval, whether it was fitted (enough real data)."""

    name: str
    real: HudStat
    simulated: HudStat
    z: float | None
    inside: bool | None
    fitted: bool

    def as_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "name": self.name,
            "real": self.real.as_dict(),
            "simulated": self.simulated.as_dict(),
            "z": self.z if self.z is not None and math.isfinite(self.z) else None,
            "inside": self.inside,
            "fitted": self.fitted,
        }


@dataclass(frozen=True)
class FitResult:
    """The fitted spec, its parameters' values, the distances and the report."""

    spec: PoolSpec
    parameters: list[FitParameter]
    start: list[float]
    values: list[float]
    start_distance: float
    distance: float
    evaluations: int
    seconds: float
    report: list[StatLine]

    @property
    def misses(self) -> list[StatLine]:
        """Fitted statistics outside the real interval."""
        return [line for line in self.report if line.fitted and not line.inside]

    def as_dict(self) -> dict[str, object]:
        """JSON form: the pool, the parameters, the distances, the report and the misses."""
        return {
            "pool": self.spec.model_dump(),
            "parameters": [
                {"name": p.name, "start": s, "value": v, "bounds": [p.low, p.high]}
                for p, s, v in zip(self.parameters, self.start, self.values, strict=True)
            ],
            "start_distance": _finite(self.start_distance),
            "distance": _finite(self.distance),
            "evaluations": self.evaluations,
            "seconds": self.seconds,
            "fitted": sum(line.fitted for line in self.report),
            "inside": sum(bool(line.fitted and line.inside) for line in self.report),
            "misses": [line.name for line in self.misses],
            "report": [line.as_dict() for line in self.report],
        }


def fit_pool(
    start: PoolSpec,
    folder: Path | None,
    real: dict[str, HudStat],
    params: list[FitParameter],
    *,
    hands: int = 20_000,
    budget: int = 200,
    seed: int = 0,
    min_count: int = 30,
    report_hands: int | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> FitResult:
    """Search ``params`` from ``start`` to bring the simulated statistics to ``real``.

    Each candidate plays ``hands`` hands with ``seed``; at most ``budget`` candidates are
    simulated. The report comes from a fresh run of ``report_hands`` (default 2 x
    ``hands``) on seed ``seed + 1``, so it does not flatter the fitted deals.
    ``progress`` is told the evaluations done and the best distance so far.
    """
    if hands < 100 or budget < 1:
        raise FitError("a fit needs at least 100 hands per candidate and a budget of 1")
    clock = time.perf_counter()
    low = np.array([p.low for p in params])
    span = np.array([p.high - p.low for p in params])
    begin = start_point(start, folder, params)
    origin = begin.values
    point = (np.array(origin) - low) / span
    first = simulated_statistics(candidate(start, params, begin, origin), folder, hands, seed)
    names = fitted_names(real, first, min_count)
    if not names:
        raise FitError(f"no statistic has {min_count} real opportunities; lower --min-count")

    def loss(unit: np.ndarray) -> float:
        spec = candidate(start, params, begin, low + span * unit)
        try:
            simulated = simulated_statistics(spec, folder, hands, seed)
        except FitError:
            return math.inf
        return distance(real, simulated, names)

    best = distance(real, first, names)
    start_distance = best
    evaluations = 1
    if progress is not None:
        progress(evaluations, best)
    rng = np.random.default_rng(seed)
    steps = np.full(len(params), FIRST_STEP)
    settled = math.inf  # the distance where the steps last ran out
    while params and evaluations < budget:
        if steps.max() < LAST_STEP:  # converged: restart the steps once it has moved since
            if best >= settled:
                break
            settled = best
            steps[:] = FIRST_STEP
        for i in rng.permutation(len(params)):
            if steps[i] < LAST_STEP:
                continue
            moved = False
            for sign in (1.0, -1.0):
                trial = point.copy()
                trial[i] = min(1.0, max(0.0, point[i] + sign * steps[i]))
                if trial[i] == point[i] or evaluations >= budget:
                    continue
                value = loss(trial)
                evaluations += 1
                if progress is not None:
                    progress(evaluations, min(best, value))
                if value < best:
                    point, best, moved = trial, value, True
                    break
            steps[i] = min(MAX_STEP, 2 * steps[i]) if moved else steps[i] / 2
    values = [round(float(v), ROUND) for v in low + span * point]
    fitted = candidate(start, params, begin, values)
    check = simulated_statistics(fitted, folder, report_hands or 2 * hands, seed + 1)
    report = [_line(name, real[name], check[name], name in names) for name in real]
    return FitResult(
        fitted,
        params,
        origin,
        values,
        start_distance,
        best,
        evaluations,
        time.perf_counter() - clock,
        report,
    )


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _line(name: str, real: HudStat, simulated: HudStat, fitted: bool) -> StatLine:
    if real.value is None or real.low is None or real.high is None:
        return StatLine(name, real, simulated, None, None, False)
    inside = simulated.value is not None and real.low <= simulated.value <= real.high
    return StatLine(name, real, simulated, z_score(real, simulated), inside, fitted)


def default_parameters(spec: PoolSpec) -> list[FitParameter]:
    """Mix weights and pool-wide shifts of the main preflop and postflop frequencies: what
    is fitted when no parameter is named."""
    texts = [f"{MIX}:{entry}" for entry in spec.mix]
    texts += [f"*:preflop.open.{p}" for p in ("EP", "MP", "CO", "BTN", "SB")]
    texts += [f"*:preflop.limp.{p}" for p in ("EP", "MP", "CO", "BTN", "SB")]
    texts += ["*:preflop.threebet", "*:preflop.call_open", "*:preflop.bb_defend"]
    texts += ["*:preflop.fold_to_3bet"]
    texts += [f"*:postflop.cbet.{s}" for s in ("flop", "turn", "river")]
    texts += ["*:postflop.fold_to_cbet", "*:postflop.check_raise", "*:postflop.bet.flop"]
    texts += ["*:postflop.call_down", "*:postflop.size_sensitivity"]
    return read_parameters(texts)
