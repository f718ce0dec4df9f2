"""The population action model as an agent: the pool's average player in any seat.

:class:`PopulationAgent` answers a batch of :class:`~poolshark.agents.protocol.Decisions`
with one forward pass: the decisions become the same
:class:`~poolshark.population.data.DecisionStates` that training rows are built from
(contexts from the engine's arrays by ``context_batch``; stacks before the forced bets,
button, board shown and action log read from the batch), then the same features, with
each opponent's range from the checkpoint's range source. It plays exact
:class:`~poolshark.agents.protocol.Moves`: a class is sampled from the model's
distribution with the match's stream, and a raise bucket becomes a raise by the bucket's
representative pot fraction (the median the training raises of that bucket used).

:meth:`PopulationAgent.action_probabilities` gives the same distribution over any
:class:`~poolshark.engine.actions.ActionSet` (the exploiter's KL reference): fold and
check/call map to themselves, each raise bucket to the set's pot fraction nearest to it on
a log scale (to all-in when the bucket's raise would take the whole stack, or when the set
has no fractions), all-in to all-in (the largest fraction when the set has none); a set
without any raise gets the raise mass on check/call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch

from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.engine.actions import ActionSet
from poolshark.engine.kernel import (
    BUTTON,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    START,
)
from poolshark.pool.context import ActionLogs, Feature
from poolshark.pool.ranges import RangeSource
from poolshark.population.actions import (
    ALL_IN_CLASS,
    CALL_CLASS,
    FIRST_RAISE_CLASS,
    FOLD_CLASS,
    N_CLASSES,
    N_SIZES,
)
from poolshark.population.features import DecisionFeatures, featurize
from poolshark.population.model import FeatureTensors, PopulationNet
from poolshark.population.sources import range_source_from_spec
from poolshark.population.states import DecisionStates, HandLogs
from poolshark.population.train import PopulationTrainingError, load_population_net

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


def decision_states(decisions: Decisions) -> DecisionStates:
    """The live decisions as :class:`DecisionStates` (one hand per decision, the decision
    after the whole log so far)."""
    batch, tables = decisions.batch, decisions.tables
    width = max(1, int(batch.table[tables, LOG_LEN].max(initial=0)))
    log = batch.log[tables, :width]
    length = batch.table[tables, LOG_LEN].astype(np.int64)
    logs = ActionLogs(
        seat=np.ascontiguousarray(log[:, :, LOG_SEAT], dtype=np.int64),
        move=np.ascontiguousarray(log[:, :, LOG_MOVE], dtype=np.int64),
        amount=np.ascontiguousarray(log[:, :, LOG_AMOUNT], dtype=np.int64),
        street=np.ascontiguousarray(log[:, :, LOG_STREET], dtype=np.int64),
        length=length,
    )
    hands = HandLogs(
        batch.config,
        np.ascontiguousarray(batch.seat[tables, START], dtype=np.int64),
        np.ascontiguousarray(batch.table[tables, BUTTON], dtype=np.int64),
        decisions.board.astype(np.int64),
        logs,
    )
    return DecisionStates(
        hands,
        np.arange(decisions.size, dtype=np.int64),
        length,
        decisions.seats.astype(np.int64),
        decisions.hole_cards.astype(np.int64),
        decisions.contexts,
    )


def trim_opponent_rows(features: DecisionFeatures) -> DecisionFeatures:
    """The features with the opponent rows no decision fills dropped (rows are filled from
    the first, so every row at or past the largest count of present rows is absent; at
    least one row is kept)."""
    present = features.opponents[:, :, 0] > 0
    used = max(1, int(present.sum(axis=1).max(initial=0)))
    return replace(features, opponents=features.opponents[:, :used])


class PopulationAgent:
    """The population model playing every seat it is given (see the module docstring).

    ``size_fractions`` (11) are the pot fractions each raise bucket raises by;
    ``ranges`` the source of the opponent range view (the checkpoint's, normally).
    """

    def __init__(
        self,
        model: PopulationNet,
        ranges: RangeSource | None,
        size_fractions: Sequence[float],
        *,
        device: str = "cpu",
        range_spec: str = "",
    ) -> None:
        if len(size_fractions) != N_SIZES:
            raise AgentError(f"need {N_SIZES} raise-bucket fractions, got {len(size_fractions)}")
        self.model = model.eval()
        self.ranges = ranges
        self.range_spec = range_spec
        self.size_fractions = np.asarray(size_fractions, dtype=np.float64)
        self.device = torch.device(device)

    def features(self, decisions: Decisions) -> DecisionFeatures:
        """The model's inputs for a batch of live decisions."""
        return featurize(decision_states(decisions), self.ranges)

    def class_probabilities(self, decisions: Decisions) -> Floats:
        """(D, 14) the model's distribution over its action classes, one forward pass.

        Only as many opponent rows as the fullest decision of the batch fills go through
        the network (a 6-max table fills at most 5 of the 9, a heads-up pot 1): the rest
        are absent rows, which add nothing to the pooled mean and max, so the answer is the
        same as over all 9 (:func:`trim_opponent_rows`).
        """
        if decisions.size == 0:
            return np.zeros((0, N_CLASSES))
        features = trim_opponent_rows(self.features(decisions))
        with torch.inference_mode():
            logits = self.model(FeatureTensors.of(features, self.device))
            probabilities: Floats = torch.softmax(logits.double(), dim=1).cpu().numpy()
        return probabilities

    def raise_amounts(self, decisions: Decisions) -> Int64s:
        """(D, 11) the raise-to total of each bucket at each decision (legal bounds)."""
        f = decisions.contexts
        base = f[:, Feature.POT] + f[:, Feature.TO_CALL]
        target = f[:, Feature.CURRENT_BET, None] + np.floor(
            self.size_fractions[None, :] * base[:, None] + 0.5
        )
        low = f[:, Feature.MIN_RAISE_TO, None]
        high = f[:, Feature.MAX_RAISE_TO, None]
        amounts: Int64s = np.clip(target, low, high).astype(np.int64)
        return amounts

    def action_probabilities(self, decisions: Decisions, actions: ActionSet) -> Floats:
        """(D, actions.size) the model's distribution mapped onto an action set."""
        classes = self.class_probabilities(decisions)
        out = np.zeros((decisions.size, actions.size))
        out[:, 0] = classes[:, FOLD_CLASS]
        out[:, 1] = classes[:, CALL_CLASS]
        fractions = np.asarray(actions.pot_fractions, dtype=np.float64)
        all_in_index = actions.size - 1 if actions.all_in else None
        raises = classes[:, FIRST_RAISE_CLASS:ALL_IN_CLASS]
        if fractions.size == 0 and all_in_index is None:
            out[:, 1] += raises.sum(axis=1) + classes[:, ALL_IN_CLASS]
            return out
        if fractions.size:
            nearest = np.argmin(
                np.abs(np.log(self.size_fractions)[:, None] - np.log(fractions)[None, :]), axis=1
            )
            target = np.broadcast_to(2 + nearest, raises.shape).copy()
        else:
            target = np.full(raises.shape, -1, dtype=np.int64)
        if all_in_index is not None:
            whole = self.raise_amounts(decisions) >= decisions.contexts[:, [Feature.MAX_RAISE_TO]]
            target = np.where(whole | (target < 0), all_in_index, target)
        rows = np.repeat(np.arange(decisions.size), N_SIZES)
        np.add.at(out, (rows, target.ravel()), raises.ravel())
        last = all_in_index if all_in_index is not None else 1 + fractions.size
        out[:, last] += classes[:, ALL_IN_CLASS]
        return out

    def act(self, decisions: Decisions) -> Moves:
        """Sample a class per decision and play it as an exact move."""
        count = decisions.size
        if count == 0:
            return Moves(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        probabilities = self.class_probabilities(decisions)
        cumulative = np.cumsum(probabilities, axis=1)
        draw = decisions.rng.random(count) * cumulative[:, -1]
        choice = np.minimum((cumulative <= draw[:, None]).sum(axis=1), N_CLASSES - 1)
        choice = np.where(probabilities[np.arange(count), choice] > 0, choice, CALL_CLASS)
        moves = np.where(choice == FOLD_CLASS, 0, np.where(choice == CALL_CLASS, 1, 2))
        amounts = np.zeros(count, dtype=np.int64)
        sized = (choice >= FIRST_RAISE_CLASS) & (choice < ALL_IN_CLASS)
        if sized.any():
            by_bucket = self.raise_amounts(decisions)
            rows = np.flatnonzero(sized)
            amounts[rows] = by_bucket[rows, choice[rows] - FIRST_RAISE_CLASS]
        all_in = choice == ALL_IN_CLASS
        amounts[all_in] = decisions.contexts[all_in, Feature.MAX_RAISE_TO].astype(np.int64)
        return Moves(moves.astype(np.int64), amounts)


def load_population_model(
    path: str | Path, *, device: str = "cpu", ranges: str | None = None
) -> PopulationAgent:
    """A :class:`PopulationAgent` from a population-model checkpoint (``kind``
    ``population-model``), its range source from the checkpoint unless ``ranges`` names
    another (a range-source spec: ``uniform``, ``none``, ``exact:POOL`` ...)."""
    try:
        model, payload = load_population_net(Path(path), device)
        spec = str(payload["range_source"]) if ranges is None else ranges
        source = range_source_from_spec(spec)
    except (PopulationTrainingError, ValueError) as error:
        raise AgentError(f"population model {str(path)!r}: {error}") from None
    return PopulationAgent(
        model,
        source,
        [float(x) for x in payload["size_fractions"]],
        device=device,
        range_spec=spec,
    )
