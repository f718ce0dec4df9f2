"""Fitting the network player's action function to recorded play with hidden cards, by
stochastic EM (seed 003, section 6.1): impute every hidden hand from the current model,
then raise the mean log-likelihood per decision of the actions given the cards; repeat.

**Imputation** (:func:`impute`) draws each hidden line's hand from its posterior under the
model, ``P(h | actions) ∝ P(actions | h)`` over the hands the record leaves possible (not
on the board dealt, not shown by another player of the deal), and the deal's hidden hands
jointly without overlap:

* *Rejection sampling with a uniform proposal* for lines of at most ``rejection_decisions``
  decisions: propose a hand uniformly, accept it with probability ``P(actions | h) ≤ 1``.
  The acceptance is taken stage by stage (``P = Π_s P_s``, accept each factor in turn), so a
  proposal the pre-flop actions reject costs only a table lookup (pre-flop card features
  depend on the hole cards alone) and flop features are computed only for survivors.
  Proposals are batched (``proposals`` per line per round); a line not accepted after
  ``rounds`` rounds is enumerated (exact too, just slower).
* *Full enumeration* of the 1,326 hands for longer lines: their likelihood is small for
  almost every hand, so rejection would stall (the thesis's switch at six decisions).
* *Two stages*: every hidden line is drawn alone first, then each deal's draws are checked
  for a card held twice; a deal with an overlap has all its hidden lines drawn again. This
  is exact for the joint posterior ``Π_i P(a_i | h_i) 1[no overlap]``.

Approximation: the hands of players who never acted (the big blind in a walk) and the
undealt board are not drawn; they do not enter any likelihood.

**Fitting** (:func:`fit`): each round imputes the training lines and takes ``epochs``
passes of Adam over shuffled minibatches of the negative log-likelihood per decision.
The model reads the records' summed opponent beliefs where they carry them (computed under
a fitted observer, ``limitnet.public_beliefs.record_beliefs``; they are public, so the
imputation leaves them be), zeros otherwise; with ``FitConfig.observe.every`` the observer
is refitted over the model every so many rounds and the records read its new beliefs
(``limitnet.fit_observed``). Each round draws
from its own seeded stream and may be checkpointed, so a killed fit resumes to the same
weights. Each round reports the thesis's "entropy after imputation" on held-out lines (the
mean negative log-likelihood per decision with their hidden hands imputed by the model
itself), and, where the records know them, the same with the true hands, and two floors:
the players' own strategies (identity known) and the population's members mixed by their
posterior given the player's earlier actions in the deal (what a model that does not know
who plays could reach).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch
from pydantic import BaseModel, ConfigDict, Field
from scipy.special import logsumexp

from poolshark.cards.combos import COMBO_CARDS
from poolshark.limitnet.action_function import STAGES, ActionFunction
from poolshark.limitnet.agent import checkpoint_payload
from poolshark.limitnet.card_features_compiled import card_feature_batch
from poolshark.limitnet.fit_observed import ObserveConfig, ObservedRecords, observer_seed
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.public_beliefs import with_record_beliefs
from poolshark.limitnet.records import SHOWN_AT, LimitRecords
from poolshark.training.common import check_run_folder, read_checkpoint_of, save_atomic

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

HANDS = COMBO_CARDS.shape[0]
CHUNK_ROWS = 200_000
"""Decision rows per forward pass when scoring candidate hands."""
ENUMERATION_GROUP = 32
"""Lines whose every hand is scored in one batch (about 40,000 hands)."""


FIT_KIND = "limitnet-fit"
FIT_FORMAT = "poolshark-limitnet-fit-v1"


class FitError(ValueError):
    """A fit that cannot start or resume."""


class ImputeConfig(BaseModel):
    """How hidden hands are drawn (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rejection_decisions: int = Field(6, ge=0)
    proposals: int = Field(16, ge=1)
    rounds: int = Field(40, ge=1)
    redraws: int = Field(10_000, ge=1, description="Overlap redraws of a deal before it fails.")


class FitConfig(BaseModel):
    """A stochastic-EM fit's settings (validated)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rounds: int = Field(8, ge=1, description="EM rounds: impute, then fit.")
    epochs: int = Field(2, ge=1, description="Passes over the training rows per round.")
    batch: int = Field(4096, ge=1)
    learning_rate: float = Field(0.01, gt=0)
    outcome_states: int = Field(8, ge=1)
    player_types: int = Field(0, ge=0, description="0: one model for the population.")
    seed: int = 0
    impute: ImputeConfig = ImputeConfig()
    observe: ObserveConfig = ObserveConfig()


@cache
def _preflop_features() -> Floats:
    """(1326, widest) card features of every hand before the flop (they ignore the board)."""
    features = card_feature_batch(COMBO_CARDS, np.zeros((HANDS, 5), dtype=np.int64), 0)
    features.flags.writeable = False
    return features


def dead_cards(records: LimitRecords) -> Bools:
    """(L, 52) cards each line's player cannot hold by the record: the board dealt by the
    deal's end and every hand shown in the deal (a shown line's own cards included)."""
    dead = np.zeros((records.lines, 52), dtype=bool)
    for k in range(5):
        rows = np.flatnonzero(records.board_shown > k)
        dead[rows, records.boards[rows, k]] = True
    deals, deal_index = np.unique(records.deal, return_inverse=True)
    shown_cards = np.zeros((deals.size, 52), dtype=bool)
    at = np.flatnonzero(records.shown)
    for c in range(2):
        shown_cards[deal_index[at], records.holes[at, c]] = True
    dead |= shown_cards[deal_index]
    return dead


def _stage_bounds(records: LimitRecords) -> Int64s:
    """(L, 5) row offsets: line ``i``'s stage-``s`` decisions are rows ``[b[i, s], b[i, s+1])``
    (stages never decrease within a line)."""
    bounds = np.empty((records.lines, STAGES + 1), dtype=np.int64)
    bounds[:, 0] = records.line_start[:-1]
    for stage in range(STAGES):
        before = np.bincount(records.line[records.stages <= stage], minlength=records.lines).astype(
            np.int64
        )
        bounds[:, stage + 1] = records.line_start[:-1] + before
    return bounds


def stage_log_likelihoods(
    model: ActionFunction,
    records: LimitRecords,
    bounds: Int64s,
    lines: Int64s,
    hands: Int64s,
    stage: int,
    types: Int64s | None = None,
) -> Floats:
    """(n,) log-probability of line ``lines[i]``'s stage-``stage`` actions had its player
    held hand ``hands[i]`` (an index into the 1,326 combos); 0 where the line has none.
    ``types`` (L,) are the lines' player types (a model with player types)."""
    first, last = bounds[lines, stage], bounds[lines, stage + 1]
    counts = last - first
    out = np.zeros(lines.size)
    active = np.flatnonzero(counts > 0)
    if active.size == 0:
        return out
    if stage == 0:
        cards = _preflop_features()[hands[active]]
    else:
        shown = SHOWN_AT[stage]
        cards = card_feature_batch(COMBO_CARDS[hands[active]], records.boards[lines[active]], shown)
    per_pair = counts[active]
    pair = np.repeat(np.arange(active.size), per_pair)
    offsets = np.concatenate([[0], np.cumsum(per_pair)[:-1]])
    rows = first[active][pair] + np.arange(pair.size) - np.repeat(offsets, per_pair)
    row_types = None if types is None else types[lines[active]][pair]
    chosen = np.zeros(pair.size)
    for start in range(0, pair.size, CHUNK_ROWS):
        part = slice(start, start + CHUNK_ROWS)
        chosen[part] = _chosen_log_probabilities(
            model,
            records,
            rows[part],
            cards[pair[part]],
            None if row_types is None else row_types[part],
        )
    sums = np.zeros(active.size)
    np.add.at(sums, pair, chosen)
    out[active] = sums
    return out


def belief_rows(records: LimitRecords, model: ActionFunction, rows: Int64s | None = None) -> Floats:
    """The summed opponent beliefs at decision ``rows`` (every row when None) as the model
    reads them: the records' (:meth:`LimitRecords.with_beliefs`), zeros without them."""
    count = records.decisions if rows is None else rows.size
    if records.beliefs is None:
        return np.zeros((count, model.card_types))
    if records.beliefs.shape[1] != model.card_types:
        raise FitError(
            f"the records carry beliefs over {records.beliefs.shape[1]} card types, the "
            f"model reads {model.card_types}"
        )
    beliefs: Floats = records.beliefs if rows is None else records.beliefs[rows]
    return beliefs


def _chosen_log_probabilities(
    model: ActionFunction,
    records: LimitRecords,
    rows: Int64s,
    cards: Floats,
    types: Int64s | None = None,
) -> Floats:
    """log P(recorded action) at decision ``rows`` with card-feature rows ``cards`` (and
    the deciding players' types, when the model has them)."""
    with torch.no_grad():
        log_p = model.log_probabilities(
            torch.from_numpy(records.stages[rows]),
            torch.from_numpy(records.bets[rows]).float(),
            torch.from_numpy(records.costs[rows]).float(),
            torch.from_numpy(cards).float(),
            torch.from_numpy(belief_rows(records, model, rows)).float(),
            torch.from_numpy(records.legal[rows]),
            types=None if types is None else torch.from_numpy(types),
        )
    picked = log_p[torch.arange(rows.size), torch.from_numpy(records.actions[rows])]
    result: Floats = picked.double().numpy()
    return result


def line_log_likelihoods(
    model: ActionFunction,
    records: LimitRecords,
    lines: Int64s,
    hands: Int64s,
    bounds: Int64s | None = None,
    types: Int64s | None = None,
) -> Floats:
    """(n,) log P(line ``lines[i]``'s actions | hand ``hands[i]``), every stage."""
    bounds = _stage_bounds(records) if bounds is None else bounds
    return sum(
        (
            stage_log_likelihoods(model, records, bounds, lines, hands, s, types)
            for s in range(STAGES)
        ),
        start=np.zeros(lines.size),
    )


def enumerate_posterior(model: ActionFunction, records: LimitRecords, line: int) -> Floats:
    """(1326,) posterior of line ``line``'s hand under ``model``: the likelihood of its
    actions for every hand the record leaves possible, normalized."""
    lines = np.asarray([line], dtype=np.int64)
    posteriors = _enumerated_posteriors(
        model, records, _stage_bounds(records), dead_cards(records), lines
    )
    hands, chances = posteriors[line]
    posterior = np.zeros(HANDS)
    posterior[hands] = chances
    return posterior


@dataclass
class ImputeStats:
    """How the last imputation went: lines drawn each way, proposals, redrawn deals."""

    hidden: int = 0
    rejection: int = 0
    enumerated: int = 0
    proposals: int = 0
    overlap_redraws: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        """Plain values for JSON."""
        return dict(vars(self))


def impute(
    model: ActionFunction,
    records: LimitRecords,
    rng: np.random.Generator,
    config: ImputeConfig | None = None,
    stats: ImputeStats | None = None,
    types: Int64s | None = None,
) -> Int64s:
    """(L, 2) a hand for every line: shown lines keep theirs, hidden ones are drawn from
    the joint posterior under ``model`` (see the module docstring), each line played by
    its player type ``types`` (L,) when the model has them."""
    settings = config or ImputeConfig()
    book = stats if stats is not None else ImputeStats()
    start = time.perf_counter()
    dead = dead_cards(records)
    bounds = _stage_bounds(records)
    holes = records.holes.copy()
    hidden = np.flatnonzero(~records.shown)
    book.hidden += int(hidden.size)
    _, deal_index = np.unique(records.deal, return_inverse=True)
    todo = hidden
    posteriors: dict[int, tuple[Int64s, Floats]] = {}
    for _ in range(settings.redraws):
        if not todo.size:
            break
        hands = _draw_alone(
            model, records, bounds, dead, todo, rng, settings, book, posteriors, types
        )
        holes[todo] = COMBO_CARDS[hands]
        clash = _overlapping_deals(deal_index, holes, hidden)
        todo = hidden[np.isin(deal_index[hidden], clash)]
        book.overlap_redraws += int(clash.size)
    if todo.size:
        deals = np.unique(records.deal[todo])[:5].tolist()
        raise ValueError(
            f"deals {deals}: no hidden hands without a shared card after "
            f"{settings.redraws:,} draws; the model rules out the rest"
        )
    book.seconds += time.perf_counter() - start
    return holes


def _draw_alone(
    model: ActionFunction,
    records: LimitRecords,
    bounds: Int64s,
    dead: Bools,
    lines: Int64s,
    rng: np.random.Generator,
    config: ImputeConfig,
    stats: ImputeStats,
    posteriors: dict[int, tuple[Int64s, Floats]],
    types: Int64s | None = None,
) -> Int64s:
    """A hand for each of ``lines`` from its own posterior (no overlap check);
    ``posteriors`` keeps the enumerated lines' posteriors for the deal's redraws."""
    hands = np.full(lines.size, -1, dtype=np.int64)
    short = records.line_lengths[lines] <= config.rejection_decisions
    pending = np.flatnonzero(short)
    for _ in range(config.rounds):
        if pending.size == 0:
            break
        line = np.repeat(lines[pending], config.proposals)
        proposal = rng.integers(0, HANDS, size=line.size)
        stats.proposals += int(line.size)
        alive = np.asarray(~dead[line[:, None], COMBO_CARDS[proposal]].any(axis=1))
        for stage in range(STAGES):
            at = np.flatnonzero(alive)
            if at.size == 0:
                break
            log_l = stage_log_likelihoods(
                model, records, bounds, line[at], proposal[at], stage, types
            )
            alive[at] = rng.random(at.size) < np.exp(log_l)
        accepted = alive.reshape(pending.size, config.proposals)
        done = accepted.any(axis=1)
        first = accepted.argmax(axis=1)
        picks = proposal.reshape(pending.size, config.proposals)[np.arange(pending.size), first]
        hands[pending[done]] = picks[done]
        stats.rejection += int(done.sum())
        pending = pending[~done]
    left = np.flatnonzero(hands < 0)
    missing = [int(line) for line in lines[left] if int(line) not in posteriors]
    for start in range(0, len(missing), ENUMERATION_GROUP):
        group = np.asarray(missing[start : start + ENUMERATION_GROUP], dtype=np.int64)
        posteriors.update(_enumerated_posteriors(model, records, bounds, dead, group, types))
    for k in left.tolist():
        possible, chances = posteriors[int(lines[k])]
        hands[k] = possible[rng.choice(possible.size, p=chances)]
        stats.enumerated += 1
    return hands


def _enumerated_posteriors(
    model: ActionFunction,
    records: LimitRecords,
    bounds: Int64s,
    dead: Bools,
    lines: Int64s,
    types: Int64s | None = None,
) -> dict[int, tuple[Int64s, Floats]]:
    """Line -> (possible hands, posterior) for ``lines``, every hand scored in one batch."""
    possible = [np.flatnonzero(~dead[line][COMBO_CARDS].any(axis=1)) for line in lines]
    counts = np.asarray([p.size for p in possible])
    log_l = line_log_likelihoods(
        model, records, np.repeat(lines, counts), np.concatenate(possible), bounds, types
    )
    result: dict[int, tuple[Int64s, Floats]] = {}
    for line, hands, part in zip(
        lines.tolist(), possible, np.split(log_l, np.cumsum(counts)[:-1]), strict=True
    ):
        weights = np.exp(part - part.max())
        result[line] = (hands, weights / weights.sum())
    return result


def _overlapping_deals(deal_index: Int64s, holes: Int64s, hidden: Int64s) -> Int64s:
    """Deals where a card is held twice (by two hidden draws, or a draw and a shown hand)."""
    counts = np.zeros((int(deal_index.max()) + 1 if deal_index.size else 0, 52), np.int64)
    np.add.at(counts, (np.repeat(deal_index, 2), holes.ravel()), 1)
    clash = np.flatnonzero((counts > 1).any(axis=1))
    return clash[np.isin(clash, deal_index[hidden])]


def decision_cards(records: LimitRecords, holes: Int64s) -> Floats:
    """(D, widest) card features of every decision for the lines' hands ``holes``."""
    line = records.line
    return card_feature_batch(holes[line], records.boards[line], SHOWN_AT[records.stages])


def mean_nll(
    model: ActionFunction, records: LimitRecords, cards: Floats, types: Int64s | None = None
) -> float:
    """Mean negative log-likelihood per decision of the recorded actions (``types``: each
    decision's player type, for a model with them)."""
    return -float(_row_log_likelihoods(model, records, cards, types).sum()) / max(
        records.decisions, 1
    )


def _row_log_likelihoods(
    model: ActionFunction, records: LimitRecords, cards: Floats, types: Int64s | None
) -> Floats:
    """(D,) log P(recorded action) of every decision, in chunks."""
    rows = np.arange(records.decisions)
    out = np.zeros(records.decisions)
    for start in range(0, rows.size, CHUNK_ROWS):
        part = rows[start : start + CHUNK_ROWS]
        chunk_types = None if types is None else types[part]
        out[part] = _chosen_log_probabilities(model, records, part, cards[part], chunk_types)
    return out


def player_matches(records: LimitRecords) -> Int64s:
    """(L,) each line's player-match: a seat of a match, one player for all its deals."""
    _, index = np.unique(records.match * 64 + records.seat, return_inverse=True)
    players: Int64s = index.astype(np.int64)
    return players


def match_type_table(records: LimitRecords, types: Int64s) -> Int64s:
    """(N, 3) the match, seat and player type ``types`` (N,) of each player-match of
    ``records``: what a checkpoint keeps so that ``limit observe`` can fit the observer
    with the fit's drawn types revealed."""
    players = player_matches(records)
    table = np.zeros((types.size, 3), dtype=np.int64)
    table[players, 0] = records.match
    table[players, 1] = records.seat
    table[:, 2] = types
    return table


def line_types(records: LimitRecords, table: Int64s) -> Int64s:
    """(L,) each line's player type by its match and seat in ``table`` (as
    :func:`match_type_table`), -1 where the table does not hold its player-match."""
    if table.shape[0] == 0:
        return np.full(records.lines, -1, dtype=np.int64)
    keys = table[:, 0] * 64 + table[:, 1]
    sort = np.argsort(keys)
    wanted = records.match * 64 + records.seat
    at = np.minimum(np.searchsorted(keys[sort], wanted), keys.size - 1)
    found = keys[sort][at] == wanted
    types: Int64s = np.where(found, table[sort[at], 2], -1).astype(np.int64)
    return types


def type_log_likelihoods(model: ActionFunction, records: LimitRecords, cards: Floats) -> Floats:
    """(P, T) log-likelihood of each player-match's actions (with ``cards``) under each of the
    model's player types."""
    players = player_matches(records)[records.line]
    count = int(players.max()) + 1 if players.size else 0
    out = np.zeros((count, model.player_types))
    for t in range(model.player_types):
        typed = np.full(records.decisions, t, dtype=np.int64)
        row = _row_log_likelihoods(model, records, cards, typed)
        out[:, t] = np.bincount(players, weights=row, minlength=count)
    return out


def types_by_member(records: LimitRecords, types: Int64s, kinds: int) -> Floats:
    """(K, T) share of each population member's player-matches that hold each type."""
    players = player_matches(records)
    member = np.zeros(types.size, dtype=np.int64)
    member[players] = records.player
    members = records.member_weights.size
    counts = np.zeros((members, kinds))
    np.add.at(counts, (member, types), 1.0)
    shares: Floats = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    return shares


def type_posteriors(log_likelihoods: Floats, prior: Floats) -> Floats:
    """(P, T) each player-match's type posterior (the thesis's first pass over a match)."""
    logits = log_likelihoods + np.log(np.maximum(prior, 1e-300))
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    posterior: Floats = weights / weights.sum(axis=1, keepdims=True)
    return posterior


def marginal_nll(
    model: ActionFunction, records: LimitRecords, cards: Floats, prior: Floats
) -> float:
    """Mean negative log-likelihood per decision with each player-match's type summed out
    under ``prior``: ``-sum_pm log sum_t prior_t P(actions_pm | t) / D`` (for a model without
    types, :func:`mean_nll`)."""
    logits = type_log_likelihoods(model, records, cards) + np.log(np.maximum(prior, 1e-300))
    log_sum = logsumexp(logits, axis=1)
    return -float(log_sum.sum()) / max(records.decisions, 1)


def replayed_belief_nll(
    model: ActionFunction,
    observer: Observer,
    records: LimitRecords,
    type_prior: Floats | None = None,
) -> float:
    """Mean NLL per decision of ``records`` with the true hands and the opponent beliefs
    recomputed by ``observer``'s type tables over ``model`` (as the fitted model plays
    them), rather than the beliefs the fit read (the observer's over the starting model);
    with ``type_prior`` each match's player type is summed out."""
    replayed = with_record_beliefs(records, Observer.from_state(model, observer.state()))
    cards = decision_cards(replayed, replayed.holes)
    if type_prior is not None:
        return marginal_nll(model, replayed, cards, type_prior)
    return mean_nll(model, replayed, cards)


def truth_nll(records: LimitRecords) -> float | None:
    """The recorded players' own strategies' mean negative log-likelihood per decision
    (None when the records do not know them)."""
    if records.decisions == 0 or np.isnan(records.truth).any():
        return None
    chosen = records.truth[np.arange(records.decisions), records.actions]
    return float(-np.log(np.maximum(chosen, 1e-300)).mean())


def mixture_nll(records: LimitRecords) -> float | None:
    """The best an identity-free model could reach: mean negative log-likelihood per
    decision of the population's members mixed by their posterior given the player's
    earlier actions in the deal (starting from how often each is seated). None when the
    records do not know every member's strategy."""
    if records.decisions == 0 or np.isnan(records.members).any():
        return None
    rows_all = np.arange(records.decisions)
    position = rows_all - records.line_start[records.line]
    log_weights = np.tile(np.log(records.member_weights), (records.lines, 1))
    total = 0.0
    for step in range(int(position.max()) + 1):
        rows = rows_all[position == step]
        lines = records.line[rows]
        weights = np.exp(log_weights[lines] - log_weights[lines].max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        chances = np.maximum(records.members[rows, :, records.actions[rows]], 1e-300)
        total -= float(np.log((weights * chances).sum(axis=1)).sum())
        log_weights[lines] += np.log(chances)
    return total / records.decisions


def match_mixture_nll(records: LimitRecords) -> float | None:
    """The floor for a model with player types: mean negative log-likelihood per decision of
    the population's members mixed by their posterior over each player's whole match,
    ``-sum_pm log sum_k w_k P_k(actions_pm) / D``. None when a member's strategy is unknown."""
    if records.decisions == 0 or np.isnan(records.members).any():
        return None
    rows = np.arange(records.decisions)
    chosen = np.log(np.maximum(records.members[rows, :, records.actions], 1e-300))
    players = player_matches(records)[records.line]
    count = int(players.max()) + 1
    sums = np.stack(
        [
            np.bincount(players, weights=chosen[:, k], minlength=count)
            for k in range(chosen.shape[1])
        ],
        axis=1,
    )
    logits = sums + np.log(records.member_weights)
    log_sum = logsumexp(logits, axis=1)
    return -float(log_sum.sum()) / records.decisions


@dataclass
class RoundStats:
    """One EM round: the training fit and the held-out figures (nats per decision)."""

    round: int
    train_nll: float
    holdout_imputed_nll: float | None
    holdout_true_nll: float | None
    impute: dict[str, float | int]
    seconds: float
    observer: dict[str, float | int] | None = None

    def as_dict(self) -> dict[str, object]:
        """Plain values for JSON."""
        return dict(vars(self))


@dataclass
class FitResult:
    """The fitted model and its history; ``holdout_truth_nll`` is the floor with each
    player's identity known, ``holdout_mixture_nll`` the floor without it (and
    ``holdout_match_mixture_nll`` with a whole match to tell the players apart). With player
    types, ``type_by_member`` (K, T) is the share of each population member's training
    player-matches that drew each type in the last round: whether the types found the
    members; ``types`` (player-matches,) the types drawn in the last round."""

    model: ActionFunction
    history: list[RoundStats] = field(default_factory=list)
    holdout_truth_nll: float | None = None
    holdout_mixture_nll: float | None = None
    holdout_match_mixture_nll: float | None = None
    start_holdout_imputed_nll: float | None = None
    type_prior: Floats | None = None
    type_by_member: Floats | None = None
    types: Int64s | None = None
    observed: ObservedRecords | None = None


def fit(
    records: LimitRecords,
    config: FitConfig,
    *,
    holdout: LimitRecords | None = None,
    model: ActionFunction | None = None,
    observer: Observer | None = None,
    progress: Callable[[RoundStats], None] | None = None,
    checkpoint: Path | None = None,
    resume: bool = False,
) -> FitResult:
    """Fit an action function to ``records`` by stochastic EM (see the module docstring);
    ``model`` is the starting point (default: a fresh one from the seed). With
    ``checkpoint``, the state after every round is written there atomically, and ``resume``
    continues from it to the weights a straight run reaches (each round draws from its own
    seeded stream). ``observer`` gave the records their beliefs; with ``config.observe.every``
    it is refitted over the model every so many rounds and the records read its new beliefs
    (``limitnet.fit_observed``; ``result.observed``)."""
    if checkpoint is not None:
        check_run_folder(checkpoint, resume, FitError)
    if config.observe.every and holdout is None:
        raise FitError("refitting the observer needs held-out records to stop its fit on")
    torch.manual_seed(config.seed)
    kinds = config.player_types
    fitted = model or ActionFunction(config.outcome_states, seed=config.seed, player_types=kinds)
    if fitted.player_types != kinds:
        raise FitError(f"the model has {fitted.player_types} player types, the fit {kinds}")
    optimizer = torch.optim.Adam(fitted.parameters(), lr=config.learning_rate)
    observed = ObservedRecords(config.observe, records, holdout, observer)
    result = FitResult(fitted, observed=observed)
    players = player_matches(records)
    types = None
    if kinds:
        result.type_prior = np.full(kinds, 1.0 / kinds)
        types = np.random.default_rng([config.seed, 9]).integers(0, kinds, int(players.max()) + 1)
    if holdout is not None:
        rng = np.random.default_rng([config.seed, 8])
        result.holdout_truth_nll = truth_nll(holdout)
        result.holdout_mixture_nll = mixture_nll(holdout)
        result.holdout_match_mixture_nll = match_mixture_nll(holdout)
        if not kinds:
            held_cards = decision_cards(holdout, impute(fitted, holdout, rng, config.impute))
            result.start_holdout_imputed_nll = mean_nll(fitted, holdout, held_cards)
    if resume:
        if checkpoint is None:
            raise FitError("resuming needs the checkpoint to resume from")
        types = result.types = _resume(checkpoint, config, fitted, optimizer, result)
        records, holdout = observed.records, observed.holdout
    for round_ in range(len(result.history), config.rounds):
        start = time.perf_counter()
        rng = np.random.default_rng([config.seed, 7, round_])
        stats = ImputeStats()
        line_types = None if types is None else types[players]
        holes = impute(fitted, records, rng, config.impute, stats, line_types)
        cards = decision_cards(records, holes)
        if types is not None and result.type_prior is not None:
            posterior = type_posteriors(
                type_log_likelihoods(fitted, records, cards), result.type_prior
            )
            types = (posterior.cumsum(axis=1) < rng.random((len(posterior), 1))).sum(axis=1)
            types = np.minimum(types, kinds - 1)
            result.type_prior = posterior.mean(axis=0)
            line_types = types[players]
        row_types = None if line_types is None else line_types[records.line]
        train_nll = _fit_rows(fitted, optimizer, records, cards, config, rng, row_types)
        imputed = true = None
        if holdout is not None:
            true_cards = decision_cards(holdout, holdout.holes)
            if result.type_prior is not None:
                true = marginal_nll(fitted, holdout, true_cards, result.type_prior)
            else:
                held = impute(fitted, holdout, rng, config.impute)
                imputed = mean_nll(fitted, holdout, decision_cards(holdout, held))
                true = mean_nll(fitted, holdout, true_cards)
        row = RoundStats(
            round_, train_nll, imputed, true, stats.as_dict(), time.perf_counter() - start
        )
        if observed.due(round_):
            seed = observer_seed(config.seed, round_)
            row.observer = observed.refit(fitted, seed, line_types, result.type_prior)
            records, holdout = observed.records, observed.holdout
        result.history.append(row)
        if types is not None:
            result.type_by_member = types_by_member(records, types, kinds)
            result.types = types
        if checkpoint is not None:
            _save(checkpoint, config, fitted, optimizer, result, types)
        if progress is not None:
            progress(row)
    return result


def _save(
    path: Path,
    config: FitConfig,
    model: ActionFunction,
    optimizer: torch.optim.Optimizer,
    result: FitResult,
    types: Int64s | None,
) -> None:
    """The state after a round: weights, Adam's state, the rounds so far, and with player
    types each player-match's drawn type and the prior."""
    extra: dict[str, object] = {
        "config": config.model_dump(mode="json"),
        "optimizer": optimizer.state_dict(),
        "history": [row.as_dict() for row in result.history],
    }
    if types is not None and result.type_prior is not None:
        extra["types"] = torch.from_numpy(types)
        extra["type_prior"] = result.type_prior.tolist()
    if result.observed is not None:
        extra.update(result.observed.checkpoint_entries(model))
    payload = checkpoint_payload(model, extra)
    payload["kind"], payload["format"] = FIT_KIND, FIT_FORMAT
    save_atomic(payload, path)


def _resume(
    path: Path,
    config: FitConfig,
    model: ActionFunction,
    optimizer: torch.optim.Optimizer,
    result: FitResult,
) -> Int64s | None:
    """Load a round's state written by :func:`_save` (the same settings, but perhaps more
    rounds; a setting it predates takes its default), the refitted observer and the records'
    beliefs included; the player-matches' types, with player types."""
    payload = read_checkpoint_of(path, FIT_KIND, FIT_FORMAT, "cpu", FitError)
    saved = FitConfig.model_validate(payload["config"]).model_dump(mode="json", exclude={"rounds"})
    if saved != config.model_dump(mode="json", exclude={"rounds"}):
        raise FitError(f"{str(path)!r} was written by a fit with other settings")
    model.load_state_dict(payload["model"])
    optimizer.load_state_dict(payload["optimizer"])
    result.history = [RoundStats(**row) for row in payload["history"]]
    if result.observed is not None:
        result.observed.restore(payload, model)
    if "types" not in payload:
        return None
    result.type_prior = np.asarray(payload["type_prior"], dtype=np.float64)
    types: Int64s = payload["types"].numpy().astype(np.int64)
    return types


def _fit_rows(
    model: ActionFunction,
    optimizer: torch.optim.Optimizer,
    records: LimitRecords,
    cards: Floats,
    config: FitConfig,
    rng: np.random.Generator,
    types: Int64s | None = None,
) -> float:
    """``config.epochs`` passes of Adam over minibatches (``types``: each decision's player
    type, as drawn); the mean NLL after them."""
    stages = torch.from_numpy(records.stages)
    bets = torch.from_numpy(records.bets).float()
    costs = torch.from_numpy(records.costs).float()
    card_rows = torch.from_numpy(cards).float()
    beliefs = torch.from_numpy(belief_rows(records, model)).float()
    legal = torch.from_numpy(records.legal)
    actions = torch.from_numpy(records.actions)
    typed = None if types is None else torch.from_numpy(types)
    model.train()
    for _ in range(config.epochs):
        order = torch.from_numpy(rng.permutation(records.decisions))
        for start in range(0, records.decisions, config.batch):
            rows = order[start : start + config.batch]
            log_p = model.log_probabilities(
                stages[rows],
                bets[rows],
                costs[rows],
                card_rows[rows],
                beliefs[rows],
                legal[rows],
                types=None if typed is None else typed[rows],
            )
            loss = -log_p[torch.arange(rows.numel()), actions[rows]].mean()
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
    model.eval()
    return mean_nll(model, records, cards, types)
