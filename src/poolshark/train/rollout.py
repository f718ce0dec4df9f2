"""Experience for the exploiter: one learning seat at thousands of tables of frozen agents.

:class:`Rollout` plays complete hands on one :class:`~poolshark.engine.batched.BatchedTables`.
The learner sits in seat 0 of every table; the button moves one seat every hand, so it
plays every position. Each other seat, each hand, is played by one of the given opponents
(any :class:`~poolshark.evaluate.agents.Agent`: a synthetic pool's true styles, bots, a
learned population model), drawn by weight when the hand is dealt.

The **decision layer** works in steps: at each step every live table has exactly one
player to act; the pending decisions are grouped by who owns them (the learner, or one
opponent model) and each group is answered by one batched call (one forward pass of the
learner's policy, one ``act`` per opponent model), then the engine applies every table's
move in one compiled call. Finished tables are booked and dealt again until every table
has played ``hands_per_table`` hands.

* **Rewards** are the learner's result in big blinds, given at the hand's last learner
  decision (every earlier one gets 0; the hand is the episode). All-in pots before the
  river are paid by expectation (``all_in_ev``): ``sampled`` (default) averages the
  engine's own settlement over ``runouts`` random boards, a fixed cost per all-in;
  ``exact`` enumerates every runout (the engine's EV settlement: up to 1.7 million boards
  for a preflop all-in, which an early, all-in-happy policy makes ruinously slow); ``off``
  pays the dealt board.
* **Folded hands are abandoned** (``abandon_folded``): once the learner folds, its result
  is fixed (minus what it put in), so the table is dealt a new hand at once instead of
  asking the opponents to finish a hand nobody learns from.
* **No preflop cache.** A cache of repeated preflop decisions (keyed by the decision
  context and the hole cards for opponents, by the whole input row for the learner) was
  built and measured (``docs/exploit.md``): with hit rates of 13-48% it never paid for its
  per-row lookups, against compiled styles or a 3 x 512 MLP opponent, so it is not here.
* **Reference** (the safe exploiter): an agent whose :class:`~poolshark.evaluate.agents.
  Probabilities` over the learner's action set are recorded at every learner decision, for
  the KL penalty. :class:`StyleProbabilities` is that agent for synthetic-pool styles.

Every random stream of a collection (cards, opponents' draws and sampling, the learner's
sampling, runouts) is derived from ``(seed, iteration)``, so a collection replays exactly
and a resumed training run continues bit for bit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.cards.evaluator import evaluate_batch
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BUTTON, FOLDED, TOTAL, BatchedTables, LegalBatch
from poolshark.engine.config import GameConfig
from poolshark.evaluate.agents import (
    Agent,
    Decisions,
    Probabilities,
    engine_moves,
)
from poolshark.evaluate.bots import StyleAgent
from poolshark.evaluate.exploiter_agent import decision_inputs
from poolshark.evaluate.match import no_limit_game
from poolshark.evaluate.runouts import sampled_net
from poolshark.models.actor_critic import smooth_reference
from poolshark.pool.context import Feature
from poolshark.pool.policy import (
    MAX_SIZES,
    N_COLUMNS,
    StyleBank,
    _distribution,
    _node_of,
    _postflop_raise_continue,
    _raise_amounts,
)
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    draw_strength_one,
    made_strength_one,
    reference_ranges,
)

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]

LEARNER = 0
"""The learner's seat at every table."""
LearnerPolicy = Callable[[Float32s, Bools], npt.ArrayLike]
"""``policy(inputs, masks) -> (D, A)`` probabilities (0 on illegal actions)."""
ALL_IN_EV = ("sampled", "exact", "off")


class RolloutError(ValueError):
    """A rollout that cannot run as asked (bad settings, an unusable reference)."""


@dataclass(frozen=True)
class RolloutSettings:
    """How experience is collected (validated)."""

    tables: int = 1024
    hands_per_table: int = 8
    seats: int = 6
    small_blind: int = 1
    big_blind: int = 2
    depth_bb: float = 100.0
    rake_percent: float = 0.0
    rake_cap_bb: float | None = None
    all_in_ev: str = "sampled"
    runouts: int = 64
    abandon_folded: bool = True
    max_actions: int = 256

    def __post_init__(self) -> None:
        checks = (
            (self.tables >= 1, f"tables must be at least 1, got {self.tables}"),
            (
                self.hands_per_table >= 1,
                f"hands per table must be >= 1, got {self.hands_per_table}",
            ),
            (2 <= self.seats <= 10, f"seats must be 2..10, got {self.seats}"),
            (self.all_in_ev in ALL_IN_EV, f"all_in_ev must be one of {ALL_IN_EV}"),
            (self.runouts >= 1, f"runouts must be at least 1, got {self.runouts}"),
            (self.depth >= 1, f"the stack depth {self.depth_bb} bb is less than one chip"),
            (0.0 <= self.rake_percent <= 100.0, f"rake must be 0..100%, got {self.rake_percent}"),
            (
                self.rake_cap_bb is None or self.rake_cap_bb >= 0,
                f"the rake cap cannot be negative, got {self.rake_cap_bb}",
            ),
        )
        for ok, message in checks:
            if not ok:
                raise RolloutError(message)

    @property
    def depth(self) -> int:
        """Starting stack in chips (reset every hand)."""
        return round(self.depth_bb * self.big_blind)

    def game(self) -> GameConfig:
        """The engine's game: these blinds and rake (exact EV settlement only when asked)."""
        return no_limit_game(
            self.seats,
            self.small_blind,
            self.big_blind,
            self.rake_percent,
            self.rake_cap_bb,
            exact_ev=self.all_in_ev == "exact",
        )


@dataclass(frozen=True)
class Opponent:
    """A frozen agent and its share of the opponent seats."""

    name: str
    agent: Agent
    weight: float = 1.0


@dataclass
class RolloutBatch:
    """The learner's decisions of one collection, in the order they were taken.

    ``next_index[i]`` is the learner's next decision in the same hand (-1: the hand's
    last, which carries the hand's reward in ``rewards``; all others carry 0).
    ``hand_rewards`` holds the learner's result of every hand played (also hands where it
    never decided, such as a walk in the big blind).
    """

    inputs: Float32s
    cards: UInt8s
    showdown: Float32s
    masks: Bools
    actions: Int64s
    log_probs: Floats
    rewards: Floats
    next_index: Int64s
    street: Int64s
    facing_open: Bools
    reference: Floats | None
    hand_rewards: Floats
    opponent_decisions: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of learner decisions."""
        return int(self.actions.size)

    def metrics(self, action_names: Sequence[str]) -> dict[str, float]:
        """Per-collection figures: win rate, action frequencies, the 3-bet frequency."""
        hands = self.hand_rewards
        count = max(hands.size, 1)
        spread = float(hands.std(ddof=1)) if hands.size > 1 else 0.0
        figures = {
            "hands": float(hands.size),
            "decisions": float(self.size),
            "bb_per_100": 100.0 * float(hands.mean()) if hands.size else 0.0,
            "bb_per_100_stderr": 100.0 * spread / float(np.sqrt(count)),
        }
        counts = np.bincount(self.actions, minlength=len(action_names))
        preflop = self.street == 0
        preflop_counts = np.bincount(self.actions[preflop], minlength=len(action_names))
        for k, name in enumerate(action_names):
            key = name.replace(" ", "_")
            figures[f"freq_{key}"] = float(counts[k] / max(self.size, 1))
            figures[f"preflop_freq_{key}"] = float(preflop_counts[k] / max(preflop.sum(), 1))
        facing = self.facing_open
        figures["facing_open"] = float(facing.sum())
        figures["threebet_rate"] = float((self.actions[facing] >= 2).sum() / max(facing.sum(), 1))
        return figures


# -- privileged information for the critic ---------------------------------------------------


def privileged_cards(batch: BatchedTables, tables: Int64s, viewers: Int64s) -> UInt8s:
    """(k, 2 * seats + 5) every seat's hole cards from the viewer clockwise, then the whole
    board (the layout of ``models.actor_critic.privileged_one_hot``)."""
    n = batch.config.seats
    order = (viewers[:, None] + np.arange(n)[None, :]) % n
    holes = batch.hole_cards[tables[:, None], order].reshape(tables.size, 2 * n)
    return np.ascontiguousarray(np.concatenate([holes, batch.boards[tables]], axis=1))


def showdown_features(batch: BatchedTables, tables: Int64s, viewers: Int64s) -> Float32s:
    """(k, seats) who would win a showdown on the whole board: column 0 the viewer's share of
    the best live hand (1 alone, 0.5 tied, 0 beaten), column j whether the live seat j to
    the viewer's left beats it (1, 0.5 tie, 0 beaten or folded)."""
    n, k = batch.config.seats, tables.size
    if k == 0:
        return np.zeros((0, n), dtype=np.float32)
    order = (viewers[:, None] + np.arange(n)[None, :]) % n
    holes = batch.hole_cards[tables[:, None], order]  # (k, n, 2)
    boards = np.broadcast_to(batch.boards[tables][:, None, :], (k, n, 5))
    seven = np.concatenate([holes, boards], axis=2).reshape(k * n, 7)
    values = evaluate_batch(seven).reshape(k, n).astype(np.int64)
    live = batch.seat[tables[:, None], FOLDED, order] == 0
    mine = values[:, :1]
    others = np.where(live[:, 1:], np.sign(values[:, 1:] - mine) * 0.5 + 0.5, 0.0)
    best_other = np.where(live[:, 1:], values[:, 1:], 0).max(axis=1)
    share = np.where(mine[:, 0] > best_other, 1.0, np.where(mine[:, 0] == best_other, 0.5, 0.0))
    return np.concatenate([share[:, None], others], axis=1).astype(np.float32)


# -- reference probabilities of synthetic-pool styles ---------------------------------------


def raise_targets(decisions: Decisions, actions: ActionSet) -> Int64s:
    """(D, raises) the exact raise-to amount of each raise action of ``actions`` at each
    decision (-1 where raising is not allowed)."""
    batch = decisions.batch
    raises = actions.size - 2
    out = np.full((decisions.size, raises), -1, dtype=np.int64)
    for r in range(raises):
        full = np.full(batch.size, 2 + r, dtype=np.int64)
        _, amounts = actions.to_moves(batch, decisions.legal, full)
        out[:, r] = amounts[decisions.tables]
    out[decisions.min_raise_to < 0] = -1
    return out


@nb.njit(cache=True, nogil=True)
def _nearest_raise(amount: int, most: int, targets: Int64s, all_in_last: bool) -> int:
    """The raise action (0-based among the raises) whose raise-to is closest to ``amount``
    (ties: the smaller); a raise of the whole stack is the all-in action when there is one."""
    count = targets.size
    if count == 0:
        return -1
    if all_in_last and amount >= most:
        return count - 1
    best, gap = 0, abs(amount - targets[0])
    for r in range(1, count):
        if abs(amount - targets[r]) < gap:
            best, gap = r, abs(amount - targets[r])
    return best


@nb.njit(cache=True, nogil=True)
def _style_mixture_kernel(
    raise_weight: Floats,
    continue_weight: Floats,
    params: Floats,
    sizes: Floats,
    size_weights: Floats,
    weights: Floats,
    features: Floats,
    hole: Int64s,
    board: Int64s,
    targets: Int64s,
    all_in_last: bool,
    references: npt.NDArray[np.bool_],
    combo_index: npt.NDArray[np.int16],
    combo_cards: UInt8s,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    has_straight: Bools,
    out: Floats,
) -> None:
    """``out[i]`` = the weighted mix of the styles' probabilities at decision ``i`` over the
    action set: fold, call, and each style raise size added to its nearest raise action."""
    row = np.zeros(N_COLUMNS)
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    for i in range(features.shape[0]):
        f = features[i]
        first, second = hole[i, 0], hole[i, 1]
        combo = combo_index[first, second]
        street = int(f[Feature.STREET])
        made, draw = 0.0, 0.0
        node = 0
        if street == 0:
            node = _node_of(f)
        else:
            made = made_strength_one(
                combo,
                board[i],
                street + 2,
                references,
                combo_cards,
                card_key,
                card_mask,
                row_base,
                rank_table,
                flush_table,
            )
            draw = draw_strength_one(first, second, board[i], street + 2, has_straight)
        most = int(f[Feature.MAX_RAISE_TO])
        for k in range(weights.size):
            w = weights[k]
            if w == 0.0:
                continue
            if street == 0:
                up = raise_weight[k, node, combo]
                keep = continue_weight[k, node, combo]
            else:
                up, keep = _postflop_raise_continue(params[k], f, made, draw)
            kind = _raise_amounts(params[k], sizes[k], f, amounts)
            _distribution(up, keep, f, size_weights[k], kind, row)
            out[i, 0] += w * row[0]
            out[i, 1] += w * row[1]
            for j in range(MAX_SIZES):
                if row[2 + j] == 0.0:
                    continue
                r = _nearest_raise(amounts[j], most, targets[i], all_in_last)
                if r < 0:
                    out[i, 1] += w * row[2 + j]
                else:
                    out[i, 2 + r] += w * row[2 + j]


class StyleProbabilities:
    """The exact policy of synthetic-pool styles (a weighted mix: a pool's average player)
    as :class:`Probabilities` over an action set.

    Fold and check/call keep the styles' own probabilities; each raise size a style would
    use goes to the action of the set whose exact raise-to amount at that decision is
    closest in chips (ties to the smaller), a raise of the whole stack to all-in when the
    set has it; with no raise in the set, raising mass becomes a call. The mix weights are
    the styles' seat frequencies: the prior average over who sits there, not a posterior.
    """

    def __init__(
        self, bank: StyleBank, weights: Sequence[float], actions: ActionSet | None = None
    ) -> None:
        values = np.asarray(weights, dtype=np.float64)
        if values.shape != (bank.styles,) or (values < 0).any() or values.sum() <= 0:
            raise ValueError(f"need {bank.styles} non-negative weights with a positive sum")
        self.bank = bank
        self.weights = values / values.sum()
        self.actions = actions or ActionSet()

    @classmethod
    def of(cls, agent: StyleAgent, actions: ActionSet | None = None) -> StyleProbabilities:
        """The probabilities of a :class:`StyleAgent` (one style or a pool's mix)."""
        return cls(agent.bank, agent.draws.weights.tolist(), actions)

    def probabilities(self, decisions: Decisions) -> Floats:
        """(D, actions.size) rows summing to 1 over each decision's legal actions."""
        out = np.zeros((decisions.size, self.actions.size))
        if decisions.size == 0:
            return out
        _style_mixture_kernel(
            *self.bank,
            self.weights,
            np.ascontiguousarray(decisions.contexts),
            np.ascontiguousarray(decisions.hole_cards),
            np.ascontiguousarray(np.maximum(decisions.board, 0)),
            raise_targets(decisions, self.actions),
            self.actions.all_in,
            reference_ranges(),
            COMBO_INDEX,
            COMBO_CARDS,
            *evaluator_tables(),
            HAS_STRAIGHT,
            out,
        )
        return out

    def act(self, decisions: Decisions) -> Probabilities:
        """The styles' mixed policy over the action set."""
        return Probabilities(self.actions, self.probabilities(decisions))


class ProbabilitiesOf:
    """Any agent offering ``action_probabilities(decisions, actions) -> (D, A)`` (the
    population model's agent does) as an agent that answers :class:`Probabilities` over
    ``actions``: the form the KL reference needs."""

    def __init__(self, agent: object, actions: ActionSet) -> None:
        method = getattr(agent, "action_probabilities", None)
        if not callable(method):
            raise RolloutError(
                f"{type(agent).__name__} has no action_probabilities(decisions, actions)"
            )
        self.method = method
        self.actions = actions

    def act(self, decisions: Decisions) -> Probabilities:
        """The wrapped agent's probabilities over the action set."""
        values = np.asarray(self.method(decisions, self.actions), dtype=np.float64)
        return Probabilities(self.actions, values)


# -- the rollout ------------------------------------------------------------------------------


def sample_choices(probabilities: Floats, masks: Bools, rng: np.random.Generator) -> Int64s:
    """One legal action per row by inverse CDF over the legal probabilities."""
    legal = np.where(masks, probabilities, 0.0)
    total = legal.sum(axis=1)
    if (total <= 0).any():
        raise RolloutError("the learner's policy gave no weight to any legal action")
    cumulative = np.cumsum(legal, axis=1)
    target = rng.random(legal.shape[0]) * total
    choice = (cumulative <= target[:, None]).sum(axis=1)
    last_legal = legal.shape[1] - 1 - np.argmax(legal[:, ::-1] > 0, axis=1)
    chosen: Int64s = np.minimum(choice, last_legal).astype(np.int64)
    return chosen


class Rollout:
    """The learner against frozen opponents at ``settings.tables`` tables (see the module
    docstring); :meth:`collect` plays one collection of hands."""

    def __init__(
        self,
        settings: RolloutSettings,
        actions: ActionSet,
        opponents: Sequence[Opponent],
        *,
        reference: Agent | None = None,
        reference_epsilon: float = 0.01,
    ) -> None:
        if not opponents:
            raise RolloutError("give at least one opponent")
        weights = np.array([o.weight for o in opponents], dtype=np.float64)
        if not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
            raise RolloutError("opponent weights must be non-negative with a positive sum")
        self.settings = settings
        self.actions = actions
        self.opponents = tuple(opponents)
        self.weights = weights / weights.sum()
        self.reference = reference
        self.reference_epsilon = reference_epsilon
        self.batch = BatchedTables(
            settings.game(), settings.tables, seed=0, max_actions=settings.max_actions
        )

    def collect(self, policy: LearnerPolicy, *, seed: int, iteration: int) -> RolloutBatch:
        """Play ``hands_per_table`` hands at every table with the learner's ``policy``."""
        return _Collection(self, policy, seed, iteration).run()


class _Collection:
    """The state of one collection: who sits where, open hands, and the growing buffers."""

    def __init__(self, rollout: Rollout, policy: LearnerPolicy, seed: int, iteration: int) -> None:
        self.rollout, self.policy = rollout, policy
        settings = rollout.settings
        self.settings = settings
        self.batch = rollout.batch
        tables, seats = settings.tables, settings.seats
        streams = np.random.SeedSequence([seed, iteration]).spawn(4 + len(rollout.opponents))
        self.batch.rng[:] = streams[0].generate_state(tables, dtype=np.uint64) | np.uint64(1)
        self.learner_rng = np.random.default_rng(streams[1])
        self.draw_rng = np.random.default_rng(streams[2])
        self.runout_rng = np.random.default_rng(streams[3])
        self.opponent_rngs = [np.random.default_rng(s) for s in streams[4:]]
        self.first_button = (np.arange(tables) + iteration) % seats
        self.next_hand = iteration * tables * settings.hands_per_table
        self.hand_ids = np.zeros(tables, dtype=np.int64)
        self.played = np.zeros(tables, dtype=np.int64)
        self.open = np.zeros(tables, dtype=np.bool_)  # a hand in progress, not yet booked
        self.owner = np.zeros((tables, seats), dtype=np.int64)  # -1 learner, k opponent k
        self.last = np.full(tables, -1, dtype=np.int64)  # learner's last decision this hand
        self.chunks: dict[str, list[npt.NDArray[np.generic]]] = {
            k: []
            for k in (
                "inputs",
                "cards",
                "showdown",
                "masks",
                "actions",
                "log_probs",
                "street",
                "facing_open",
                "reference",
            )
        }
        self.count = 0
        self.links: list[tuple[Int64s, Int64s]] = []
        self.final: list[tuple[Int64s, Floats]] = []
        self.hand_rewards: list[Floats] = []
        self.opponent_decisions = np.zeros(len(rollout.opponents), dtype=np.int64)
        self.seconds = {"learner": 0.0, "opponents": 0.0, "reference": 0.0, "engine": 0.0}
        self.opponent_seconds = np.zeros(len(rollout.opponents))

    # -- dealing and booking ------------------------------------------------------------

    def deal(self, which: Int64s) -> None:
        """Start the next hand at tables ``which``: draw the opponents, deal the cards."""
        settings = self.settings
        seats = settings.seats
        first = self.played[which] == 0
        buttons = np.where(first, self.first_button[which], -1)
        later = ~first
        buttons[later] = (self.batch.table[which[later], BUTTON] + 1) % seats
        draws = self.draw_rng.choice(
            self.rollout.weights.size, size=(which.size, seats), p=self.rollout.weights
        )
        draws[:, LEARNER] = -1
        self.owner[which] = draws
        self.hand_ids[which] = self.next_hand + np.arange(which.size)
        self.next_hand += which.size
        self.played[which] += 1
        self.open[which] = True
        self.last[which] = -1
        self.batch.reset(which, stacks=settings.depth, buttons=buttons)

    def book(self, tables: Int64s, rewards: Floats) -> None:
        """Close the hands at ``tables`` with the learner's ``rewards`` (big blinds) and deal
        again where the table has hands left."""
        self.hand_rewards.append(rewards)
        has = self.last[tables] >= 0
        self.final.append((self.last[tables[has]], rewards[has]))
        self.open[tables] = False
        self.last[tables] = -1
        again = tables[self.played[tables] < self.settings.hands_per_table]
        if again.size:
            self.deal(again)

    def settle_finished(self) -> None:
        """Book every finished open hand (repeatedly: a new hand can end at the deal)."""
        batch = self.batch
        while True:
            done = np.flatnonzero(batch.done & self.open)
            if done.size == 0:
                return
            mode = self.settings.all_in_ev
            if mode == "sampled":
                net = sampled_net(batch, done, self.settings.runouts, self.runout_rng)[:, LEARNER]
            elif mode == "exact":
                net = batch.expected_net[done, LEARNER]
            else:
                net = batch.net[done, LEARNER].astype(np.float64)
            self.book(done, net / batch.config.big_blind)

    # -- one step --------------------------------------------------------------------------

    def run(self) -> RolloutBatch:
        start = time.perf_counter()
        self.deal(np.arange(self.settings.tables))
        while True:
            engine_start = time.perf_counter()
            self.settle_finished()
            legal = self.batch.legal()
            live = np.flatnonzero((legal.to_act >= 0) & self.open)
            self.seconds["engine"] += time.perf_counter() - engine_start
            if live.size == 0:
                break
            self.step(live, legal)
        self.seconds["total"] = time.perf_counter() - start
        return self.result()

    def step(self, live: Int64s, legal: LegalBatch) -> None:
        """One decision at every live table: the learner's and each opponent's in one batched
        call each, then one engine step."""
        batch = self.batch
        seats = legal.to_act[live]
        owners = self.owner[live, seats]
        moves = np.full(batch.size, -1, dtype=np.int64)
        amounts = np.zeros(batch.size, dtype=np.int64)
        mine = owners < 0
        folded = live[:0]
        if mine.any():
            folded = self.learner_step(live[mine], seats[mine], legal, moves, amounts)
        start = time.perf_counter()
        for k in np.unique(owners[~mine]).tolist():
            pick = owners == k
            opponent = self.rollout.opponents[k]
            decisions = Decisions(
                batch,
                live[pick],
                seats[pick],
                self.hand_ids[live[pick]],
                legal,
                self.opponent_rngs[k],
            )
            opponent_start = time.perf_counter()
            answer = opponent.agent.act(decisions)
            moves[live[pick]], amounts[live[pick]] = engine_moves(decisions, answer, opponent.name)
            self.opponent_seconds[k] += time.perf_counter() - opponent_start
            self.opponent_decisions[k] += decisions.size
        self.seconds["opponents"] += time.perf_counter() - start
        start = time.perf_counter()
        batch.step(moves, amounts)
        if self.settings.abandon_folded and folded.size:
            gone = folded[~batch.done[folded]]
            if gone.size:
                self.book(gone, -batch.seat[gone, TOTAL, LEARNER] / batch.config.big_blind)
        self.seconds["engine"] += time.perf_counter() - start

    def learner_step(
        self, tables: Int64s, seats: Int64s, legal: LegalBatch, moves: Int64s, amounts: Int64s
    ) -> Int64s:
        """The learner's decisions at ``tables``: features, one policy call, sampled choices,
        buffers; fills ``moves``/``amounts``; returns the tables where it folded."""
        start = time.perf_counter()
        batch, actions = self.batch, self.rollout.actions
        decisions = Decisions(batch, tables, seats, self.hand_ids[tables], legal, self.learner_rng)
        inputs = decision_inputs(decisions)
        masks = decisions.mask(actions)
        street = decisions.street
        probabilities = np.asarray(self.policy(inputs, masks), dtype=np.float64)
        choice = sample_choices(probabilities, masks, self.learner_rng)
        chosen = probabilities[np.arange(tables.size), choice]
        log_probs = np.log(chosen / np.where(masks, probabilities, 0.0).sum(axis=1))
        full = np.ones(batch.size, dtype=np.int64)
        full[tables] = choice
        all_moves, all_amounts = actions.to_moves(batch, legal, full)
        moves[tables], amounts[tables] = all_moves[tables], all_amounts[tables]
        contexts = decisions.contexts
        facing_open = (
            (street == 0)
            & (contexts[:, Feature.PREFLOP_RAISES] == 1)
            & (contexts[:, Feature.MY_RAISE_LEVEL] == 0)
        )
        index = self.count + np.arange(tables.size)
        previous = self.last[tables]
        linked = previous >= 0
        self.links.append((previous[linked], index[linked]))
        self.last[tables] = index
        self.count += tables.size
        c = self.chunks
        c["inputs"].append(inputs)
        c["cards"].append(privileged_cards(batch, tables, seats))
        c["showdown"].append(showdown_features(batch, tables, seats))
        c["masks"].append(masks)
        c["actions"].append(choice)
        c["log_probs"].append(log_probs)
        c["street"].append(street.copy())
        c["facing_open"].append(facing_open)
        self.seconds["learner"] += time.perf_counter() - start
        if self.rollout.reference is not None:
            start = time.perf_counter()
            c["reference"].append(self.reference_rows(decisions, masks))
            self.seconds["reference"] += time.perf_counter() - start
        folded: Int64s = tables[choice == 0]
        return folded

    def reference_rows(self, decisions: Decisions, masks: Bools) -> Floats:
        """The reference agent's smoothed probabilities at the learner's decisions."""
        reference = self.rollout.reference
        assert reference is not None
        answer = reference.act(decisions)
        if not isinstance(answer, Probabilities):
            raise RolloutError(
                f"the reference {type(reference).__name__} must answer Probabilities, "
                f"not {type(answer).__name__}"
            )
        if answer.actions != self.rollout.actions:
            raise RolloutError(
                f"the reference answers over {answer.actions.names}, the learner over "
                f"{self.rollout.actions.names}"
            )
        values = np.asarray(answer.values, dtype=np.float64)
        if values.shape != masks.shape or not np.isfinite(values).all() or (values < 0).any():
            raise RolloutError("the reference's probabilities must be finite, non-negative rows")
        return smooth_reference(values, masks, self.rollout.reference_epsilon)

    # -- the result -----------------------------------------------------------------------

    def result(self) -> RolloutBatch:
        settings, actions = self.settings, self.rollout.actions
        n = self.count

        def joined(name: str, shape: tuple[int, ...], dtype: type) -> npt.NDArray[np.generic]:
            parts = self.chunks[name]
            return np.concatenate(parts) if parts else np.zeros((0, *shape), dtype=dtype)

        rewards = np.zeros(n)
        next_index = np.full(n, -1, dtype=np.int64)
        for frm, to in self.links:
            next_index[frm] = to
        for index, value in self.final:
            rewards[index] = value
        reference = None
        if self.rollout.reference is not None:
            reference = joined("reference", (actions.size,), np.float64).astype(np.float64)
        names = [o.name for o in self.rollout.opponents]
        seconds = dict(self.seconds)
        for name, spent in zip(names, self.opponent_seconds.tolist(), strict=True):
            seconds[f"opponent:{name}"] = seconds.get(f"opponent:{name}", 0.0) + spent
        decisions: dict[str, int] = {}
        for name, count in zip(names, self.opponent_decisions.tolist(), strict=True):
            decisions[name] = decisions.get(name, 0) + int(count)
        return RolloutBatch(
            inputs=joined("inputs", (1,), np.float32).astype(np.float32),
            cards=joined("cards", (2 * settings.seats + 5,), np.uint8).astype(np.uint8),
            showdown=joined("showdown", (settings.seats,), np.float32).astype(np.float32),
            masks=joined("masks", (actions.size,), np.bool_).astype(np.bool_),
            actions=joined("actions", (), np.int64).astype(np.int64),
            log_probs=joined("log_probs", (), np.float64).astype(np.float64),
            rewards=rewards,
            next_index=next_index,
            street=joined("street", (), np.int64).astype(np.int64),
            facing_open=joined("facing_open", (), np.bool_).astype(np.bool_),
            reference=reference,
            hand_rewards=np.concatenate(self.hand_rewards) if self.hand_rewards else np.zeros(0),
            opponent_decisions=decisions,
            seconds=seconds,
        )
