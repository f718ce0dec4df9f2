"""The rollout-improvement error measure (thesis section 5.1, Table 5-1): how much a
player would gain by changing one decision and playing on with its own policy.

A decision is frozen (a :class:`Spot`: the real deal and the actions before it). The cards
the acting player cannot see are redrawn (:func:`draw_unseen`), each draw weighted by the
likelihood of the opponents' earlier actions under the player's own policy; every legal
option is played out from the same draw with the policy at every seat
(:func:`play_rollouts`, all spots and options in one engine batch, the policy's random
numbers shared by the options of a draw). :func:`fold_errors` turns a spot's weighted
returns into the sample, leave-fraction-out (LFO) and rollout-improvement (RI) errors;
the formulas are reconstructed in ``docs/limit.md``. Returns are in chips (blinds 1/2,
bets 2/2/4/4: the thesis's unit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Decisions
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import LOG_AMOUNT, LOG_LEN, LOG_MOVE, LOG_SEAT, LOG_STREET
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent, decision_inputs

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

Policy = Callable[[Decisions], Floats]
"""A policy: (D, 3) probabilities of fold, call, raise at D decisions (zero where illegal,
rows summing to one)."""

STAGES = ("pre-flop", "flop", "turn", "river")
SHOWN_AT = (0, 3, 4, 5)
FOLDS = 10
CHUNK_TABLES = 6000
"""Tables per engine batch of rollouts (spots are grouped up to it)."""


def network_policy(model: ActionFunction) -> Policy:
    """The network player's action probabilities as a :data:`Policy`."""
    agent = LimitNetAgent(model)

    def probabilities(decisions: Decisions) -> Floats:
        inputs = decision_inputs(decisions, model.card_types)
        chances = agent.probabilities(inputs) * inputs.legal
        normalised: Floats = chances / chances.sum(axis=1, keepdims=True)
        return normalised

    return probabilities


@dataclass(frozen=True)
class Spot:
    """A frozen decision: the real deal (``holes`` (seats, 2), ``board`` (5,)), the button,
    the stacks, and the actions before it (``prefix`` rows of seat, move, amount, street);
    ``actor`` is to act at ``street``."""

    button: int
    stacks: int
    holes: Int64s
    board: Int64s
    prefix: Int64s
    actor: int
    street: int


@dataclass(frozen=True)
class RolloutSample:
    """One spot's rollouts: ``weights`` (K,) the opponents' likelihood of each draw
    (scaled to a maximum of 1), ``returns`` (K, 3) the actor's chips won per option (NaN
    where illegal), ``legal`` (3,), ``policy`` (3,) the policy's probabilities at the spot,
    and ``cards`` (K, 3, 2 * seats + 5) the cards each option's table was dealt."""

    spot: Spot
    weights: Floats
    returns: Floats
    legal: Bools
    policy: Floats
    cards: npt.NDArray[np.uint8]


@dataclass(frozen=True)
class SpotErrors:
    """The three values of a spot (chips) and the errors between them."""

    best: float
    rollout: float
    policy: float

    @property
    def sample(self) -> float:
        """v* - v^: what the sample's best option gains over the policy, seen in-sample."""
        return self.best - self.policy

    @property
    def lfo(self) -> float:
        """v* - v~: the in-sample optimism of picking the best option."""
        return self.best - self.rollout

    @property
    def ri(self) -> float:
        """v~ - v^: the rollout improvement, judged on held-out folds."""
        return self.rollout - self.policy


def draw_unseen(spot: Spot, rollouts: int, rng: np.random.Generator) -> tuple[Int64s, Int64s]:
    """``rollouts`` deals keeping what the actor sees (its own cards and the board shown at
    its stage) and drawing the opponents' hole cards and the unseen board uniformly from the
    rest of the deck: (K, seats, 2) hole cards and (K, 5) boards."""
    seats = spot.holes.shape[0]
    shown = SHOWN_AT[spot.street]
    known = {int(c) for c in spot.holes[spot.actor]} | {int(c) for c in spot.board[:shown]}
    deck = np.array([c for c in range(52) if c not in known], dtype=np.int64)
    needed = 2 * (seats - 1) + 5 - shown
    picks = np.argsort(rng.random((rollouts, deck.size)), axis=1)[:, :needed]
    drawn = deck[picks]
    holes = np.empty((rollouts, seats, 2), dtype=np.int64)
    others = [s for s in range(seats) if s != spot.actor]
    holes[:, spot.actor] = spot.holes[spot.actor]
    holes[:, others] = drawn[:, : 2 * (seats - 1)].reshape(rollouts, seats - 1, 2)
    boards = np.empty((rollouts, 5), dtype=np.int64)
    boards[:, :shown] = spot.board[:shown]
    boards[:, shown:] = drawn[:, 2 * (seats - 1) :]
    return holes, boards


@dataclass
class _Plan:
    """Per table of a batch: the forced actions before the frozen decision (``prefix_length``
    of them; -1: none, the policy plays from the deal), the option taken there, the actor,
    and the row of ``uniforms`` its policy draws read (shared by the options of a deal)."""

    prefix_moves: Int64s
    prefix_amounts: Int64s
    prefix_length: Int64s
    option: Int64s
    actor: Int64s
    draw: Int64s
    uniforms: Floats
    after: Int64s = field(init=False)
    policy_at: Floats = field(init=False)

    def __post_init__(self) -> None:
        self.after = np.zeros(self.option.size, dtype=np.int64)
        self.policy_at = np.zeros((self.option.size, 3))


def _drive(batch: BatchedTables, plan: _Plan, policy: Policy, rng: np.random.Generator) -> Floats:
    """Play every table of ``batch`` to the end: the forced prefix, then the option, then
    the policy at every seat; returns each table's log-likelihood of the opponents' forced
    actions under the policy (and fills ``plan.policy_at``)."""
    log_likelihood = np.zeros(batch.size)
    width = plan.uniforms.shape[1]
    while True:
        legal = batch.legal()
        live = np.flatnonzero(legal.to_act >= 0)
        if live.size == 0:
            return log_likelihood
        taken = batch.table[live, LOG_LEN]
        length = plan.prefix_length[live]
        forced = taken < length
        at_option = taken == length
        free = taken > length
        judged = forced & (legal.to_act[live] != plan.actor[live])
        step = np.minimum(taken, plan.prefix_moves.shape[1] - 1)
        forced_moves = plan.prefix_moves[live, step]
        moves = np.full(batch.size, -1, dtype=np.int64)
        amounts = np.zeros(batch.size, dtype=np.int64)
        asking = judged | free | at_option
        asked = live[asking]
        if asked.size:
            chances = policy(Decisions(batch, asked, legal.to_act[asked], asked, legal, rng))
            judged_rows = judged[asking]
            picked = chances[np.arange(asked.size), np.where(judged_rows, forced_moves[asking], 0)]
            with np.errstate(divide="ignore"):
                log_likelihood[asked[judged_rows]] += np.log(picked[judged_rows])
            plan.policy_at[asked[at_option[asking]]] = chances[at_option[asking]]
            free_rows = free[asking]
            if free_rows.any():
                at = asked[free_rows]
                cumulative = np.cumsum(chances[free_rows], axis=1)
                target = plan.uniforms[plan.draw[at], plan.after[at] % width]
                sampled = (cumulative <= (target * cumulative[:, -1])[:, None]).sum(axis=1)
                last_legal = 2 - np.argmax(chances[free_rows][:, ::-1] > 0, axis=1)
                moves[at] = np.minimum(sampled, last_legal)
                plan.after[at] += 1
        moves[live[forced]] = forced_moves[forced]
        amounts[live[forced]] = plan.prefix_amounts[live[forced], step[forced]]
        moves[live[at_option]] = plan.option[live[at_option]]
        chosen = live[~forced & (moves[live] == 2)]
        amounts[chosen] = legal.min_raise_to[chosen]
        batch.step(moves, amounts)


def policy_draws(config: GameConfig) -> int:
    """Uniform numbers kept per deal for the policy's choices after the decision (the most
    decisions a hand can take; reused cyclically in a game without a cap)."""
    return config.most_decisions or 256


def legal_options(config: GameConfig, spot: Spot) -> Bools:
    """Which of fold, call, raise the actor may take at ``spot`` (replayed on one table)."""
    table = BatchedTables(config, 1)
    table.reset(
        [0],
        stacks=spot.stacks,
        buttons=[spot.button],
        hole_cards=spot.holes[None],
        boards=spot.board[None],
    )
    for move, amount in spot.prefix[:, [LOG_MOVE, LOG_AMOUNT]].tolist():
        table.step([move], [amount])
    mask: Bools = table.legal().mask()[0]
    return mask


def play_rollouts(
    config: GameConfig,
    policy: Policy,
    spots: list[Spot],
    deals: list[tuple[Int64s, Int64s]],
    rng: np.random.Generator,
    uniforms: Floats | None = None,
) -> list[RolloutSample]:
    """Play every legal option of each spot from each of its deals (hole cards (K, seats, 2)
    and boards (K, 5)): one engine batch, one table per (spot, deal, option), the same cards
    and the same policy random numbers for every option of a deal (row ``d`` of ``uniforms``,
    (all deals, :func:`policy_draws`), for the spots' deals in order; drawn when None)."""
    options = [np.flatnonzero(legal_options(config, spot)) for spot in spots]
    counts = [deal[0].shape[0] * o.size for deal, o in zip(deals, options, strict=True)]
    tables = sum(counts)
    longest = max(spot.prefix.shape[0] for spot in spots) + 1
    prefix_moves = np.ones((tables, longest), dtype=np.int64)
    prefix_amounts = np.zeros((tables, longest), dtype=np.int64)
    dealt = np.zeros((tables, 2 * config.seats + 5), dtype=np.int64)
    columns: dict[str, list[Int64s]] = {k: [] for k in ("length", "option", "actor", "button")}
    draw_of: list[Int64s] = []
    first_draw = 0
    row = 0
    for spot, (holes, boards), chosen, count in zip(spots, deals, options, counts, strict=True):
        rollouts, length = holes.shape[0], spot.prefix.shape[0]
        block = slice(row, row + count)
        prefix_moves[block, :length] = spot.prefix[:, LOG_MOVE]
        prefix_amounts[block, :length] = spot.prefix[:, LOG_AMOUNT]
        cards = np.concatenate([holes.reshape(rollouts, -1), boards], axis=1)
        dealt[block] = np.repeat(cards, chosen.size, axis=0)
        columns["length"].append(np.full(count, length))
        columns["option"].append(np.tile(chosen, rollouts))
        columns["actor"].append(np.full(count, spot.actor))
        columns["button"].append(np.full(count, spot.button))
        draw_of.append(first_draw + np.repeat(np.arange(rollouts), chosen.size))
        first_draw += rollouts
        row += count
    joined = {k: np.concatenate(v).astype(np.int64) for k, v in columns.items()}
    batch = BatchedTables(config, tables)
    stacks = np.concatenate([np.full(c, s.stacks) for s, c in zip(spots, counts, strict=True)])
    batch.reset(
        np.arange(tables),
        stacks=stacks[:, None] * np.ones(config.seats, dtype=np.int64),
        buttons=joined["button"],
        hole_cards=dealt[:, : 2 * config.seats],
        boards=dealt[:, 2 * config.seats :],
    )
    plan = _Plan(
        prefix_moves=prefix_moves,
        prefix_amounts=prefix_amounts,
        prefix_length=joined["length"],
        option=joined["option"],
        actor=joined["actor"],
        draw=np.concatenate(draw_of),
        uniforms=rng.random((first_draw, policy_draws(config))) if uniforms is None else uniforms,
    )
    log_likelihood = _drive(batch, plan, policy, rng)
    samples = []
    row = 0
    width = 2 * config.seats + 5
    for spot, (holes, _), chosen, count in zip(spots, deals, options, counts, strict=True):
        rollouts = holes.shape[0]
        block = slice(row, row + count)
        by_deal = log_likelihood[block].reshape(rollouts, chosen.size)[:, 0]
        top = by_deal.max()
        weights = np.exp(by_deal - top) if np.isfinite(top) else np.zeros(rollouts)
        returns = np.full((rollouts, 3), np.nan)
        returns[:, chosen] = batch.net[block, spot.actor].reshape(rollouts, chosen.size)
        table_cards = np.zeros((rollouts, 3, width), dtype=np.uint8)
        table_cards[:, chosen] = batch.cards[block].reshape(rollouts, chosen.size, width)
        legal = np.zeros(3, dtype=bool)
        legal[chosen] = True
        samples.append(
            RolloutSample(spot, weights, returns, legal, plan.policy_at[row], table_cards)
        )
        row += count
    return samples


def _ask(table: BatchedTables, policy: Policy, rng: np.random.Generator) -> Floats:
    """The policy's probabilities for the player to act at a one-table batch."""
    legal = table.legal()
    at = np.zeros(1, dtype=np.int64)
    chances: Floats = policy(Decisions(table, at, legal.to_act[:1], at, legal, rng))[0]
    return chances


def reference_rollouts(
    config: GameConfig,
    policy: Policy,
    spot: Spot,
    holes: Int64s,
    boards: Int64s,
    uniforms: Floats,
) -> tuple[Floats, Floats]:
    """The readable twin of :func:`play_rollouts` for one spot: one deal and one option at a
    time on a one-table batch. Returns the deals' weights (K,) and returns (K, 3)."""
    rng = np.random.default_rng(0)
    options = np.flatnonzero(legal_options(config, spot)).tolist()
    rollouts = holes.shape[0]
    likelihood = np.ones(rollouts)
    returns = np.full((rollouts, 3), np.nan)
    for deal in range(rollouts):
        for option in options:
            table = BatchedTables(config, 1)
            table.reset(
                [0],
                stacks=spot.stacks,
                buttons=[spot.button],
                hole_cards=holes[deal][None],
                boards=boards[deal][None],
            )
            chance = 1.0
            for seat, move, amount in spot.prefix[:, [LOG_SEAT, LOG_MOVE, LOG_AMOUNT]].tolist():
                if seat != spot.actor:
                    chance *= float(_ask(table, policy, rng)[move])
                table.step([move], [amount])
            likelihood[deal] = chance
            table.step([option], [table.legal().min_raise_to[0]])
            taken = 0
            while not table.done[0]:
                chances = _ask(table, policy, rng)
                cumulative = np.cumsum(chances)
                target = uniforms[deal, taken % uniforms.shape[1]] * cumulative[-1]
                move = min(int((cumulative <= target).sum()), int(np.flatnonzero(chances)[-1]))
                table.step([move], [table.legal().min_raise_to[0]])
                taken += 1
            returns[deal, option] = table.net[0, spot.actor]
    top = likelihood.max()
    weights: Floats = likelihood / top if top > 0 else likelihood
    return weights, returns


def fold_errors(weights: Floats, returns: Floats, policy: Floats, folds: int = FOLDS) -> SpotErrors:
    """The spot's best, rollout and policy values from weighted returns (K, options) and the
    policy's probabilities (options,); draw ``j`` is in fold ``j % folds``.

    ``v_d = t_d / b`` (``t_d = sum_j p_j v_jd``, ``b = sum_j p_j``); ``v* = max_d v_d``;
    ``v^ = sum_d pi_d v_d``; ``v~ = sum_i t_{i, d*_i} / b`` where ``d*_i`` is the best option
    on the draws outside fold ``i`` (the policy's likeliest where those weigh nothing).
    """
    total_weight = float(weights.sum())
    if total_weight <= 0:
        raise ValueError("every draw has zero likelihood: no estimate at this spot")
    totals = weights @ returns
    values = totals / total_weight
    fold_of = np.arange(weights.size) % folds
    rollout = 0.0
    for i in range(folds):
        inside = fold_of == i
        fold_weight = float(weights[inside].sum())
        if fold_weight == 0:
            continue
        rest_weight = total_weight - fold_weight
        fold_totals = weights[inside] @ returns[inside]
        if rest_weight > 0:
            chosen = int(np.argmax((totals - fold_totals) / rest_weight))
        else:
            chosen = int(np.argmax(policy))
        rollout += float(fold_totals[chosen])
    return SpotErrors(
        best=float(values.max()),
        rollout=rollout / total_weight,
        policy=float(policy @ values),
    )


def sample_errors(sample: RolloutSample, folds: int = FOLDS) -> SpotErrors:
    """:func:`fold_errors` over a spot's legal options."""
    legal = sample.legal
    return fold_errors(sample.weights, sample.returns[:, legal], sample.policy[legal], folds)


def record_spots(
    config: GameConfig,
    policy: Policy,
    hands: int,
    rng: np.random.Generator,
    *,
    stacks: int = 200,
) -> list[Spot]:
    """Play ``hands`` self-play hands with ``policy`` at every seat (buttons in turn) and
    freeze one decision drawn uniformly from each hand."""
    batch = BatchedTables(config, hands, seed=int(rng.integers(2**63)))
    buttons = np.arange(hands) % config.seats
    batch.reset(np.arange(hands), stacks=stacks, buttons=buttons)
    plan = _Plan(
        prefix_moves=np.zeros((hands, 1), dtype=np.int64),
        prefix_amounts=np.zeros((hands, 1), dtype=np.int64),
        prefix_length=np.full(hands, -1, dtype=np.int64),
        option=np.zeros(hands, dtype=np.int64),
        actor=np.full(hands, -1, dtype=np.int64),
        draw=np.arange(hands),
        uniforms=rng.random((hands, policy_draws(config))),
    )
    _drive(batch, plan, policy, rng)
    spots = []
    for table in range(hands):
        taken = int(batch.table[table, LOG_LEN])
        k = int(rng.integers(taken))
        log = batch.log[table, :k].copy()
        spots.append(
            Spot(
                button=int(buttons[table]),
                stacks=stacks,
                holes=batch.hole_cards[table].astype(np.int64),
                board=batch.boards[table].astype(np.int64),
                prefix=log,
                actor=int(batch.log[table, k, LOG_SEAT]),
                street=int(batch.log[table, k, LOG_STREET]),
            )
        )
    return spots


@dataclass(frozen=True)
class StageRow:
    """Table 5-1's column for one stage (or every stage): the share of decisions and the
    mean errors in chips, with the standard error of the mean RI error."""

    stage: str
    decisions: int
    share: float
    sample: float
    lfo: float
    ri: float
    ri_std_error: float

    def as_dict(self) -> dict[str, float | int | str | None]:
        """Plain values for JSON (no standard error, None, for a single decision)."""
        values: dict[str, float | int | str | None] = dict(vars(self))
        if np.isnan(self.ri_std_error):
            values["ri_std_error"] = None
        return values


def stage_table(streets: Int64s, errors: list[SpotErrors]) -> list[StageRow]:
    """One row per stage that has decisions, then the overall row."""
    sample = np.array([e.sample for e in errors])
    lfo = np.array([e.lfo for e in errors])
    ri = np.array([e.ri for e in errors])
    rows = []
    groups = [(name, streets == s) for s, name in enumerate(STAGES)]
    for name, where in [*groups, ("overall", np.ones(streets.size, dtype=bool))]:
        count = int(where.sum())
        if count == 0:
            continue
        spread = float(ri[where].std(ddof=1) / np.sqrt(count)) if count > 1 else float("nan")
        rows.append(
            StageRow(
                stage=name,
                decisions=count,
                share=count / streets.size,
                sample=float(sample[where].mean()),
                lfo=float(lfo[where].mean()),
                ri=float(ri[where].mean()),
                ri_std_error=spread,
            )
        )
    return rows


@dataclass(frozen=True)
class Evaluation:
    """A rollout-improvement run: the per-spot errors and the Table 5-1 rows."""

    streets: Int64s
    errors: list[SpotErrors]
    rows: list[StageRow]
    rollouts: int
    skipped: int


def evaluate(
    config: GameConfig,
    policy: Policy,
    decisions: int,
    rollouts: int,
    seed: int,
    *,
    folds: int = FOLDS,
    progress: Callable[[int], None] | None = None,
) -> Evaluation:
    """Freeze ``decisions`` decisions of self-play (one per hand), roll each out ``rollouts``
    times per option, and tabulate the errors by stage (deterministic in ``seed``)."""
    if decisions < 1 or rollouts < folds:
        raise ValueError(
            f"need at least one decision and at least {folds} rollouts (one per fold),"
            f" got {decisions} decisions and {rollouts} rollouts"
        )
    rng = np.random.default_rng(seed)
    spots = record_spots(config, policy, decisions, rng)
    errors: list[SpotErrors] = []
    streets: list[int] = []
    skipped = 0
    chunk = max(1, CHUNK_TABLES // (3 * rollouts))
    for first in range(0, len(spots), chunk):
        part = spots[first : first + chunk]
        deals = [draw_unseen(spot, rollouts, rng) for spot in part]
        for sample in play_rollouts(config, policy, part, deals, rng):
            if sample.weights.sum() > 0:
                errors.append(sample_errors(sample, folds))
                streets.append(sample.spot.street)
            else:
                skipped += 1
        if progress is not None:
            progress(first + len(part))
    if not errors:
        raise ValueError("no decision had a draw consistent with the earlier actions")
    street_array = np.asarray(streets, dtype=np.int64)
    return Evaluation(street_array, errors, stage_table(street_array, errors), rollouts, skipped)
