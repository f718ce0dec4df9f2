"""A league network as an agent: recurrent state per seat, sampled actions and sizes.

:class:`LeagueAgent` answers the play loop's batched decisions with one forward pass of its
:class:`~poolshark.league.nets.PokerNet`. It keeps two recurrent states for every (table,
seat) it plays: the *hand state*, cleared when a new hand starts there (a new hand id),
and the *game state*, carried from hand to hand until :meth:`LeagueAgent.new_games` clears
it (a league game starts; in a match it lasts the whole match), or cleared every hand too
for a network without ``cross_hand_memory``. Actions are drawn from the
legal fold / call / bet probabilities and bet sizes from the size head
(:mod:`poolshark.league.actions`), both with the decision's random stream, so a match or a
rollout replays from its seed.

A network with ``hand_end_step`` (and cross-hand memory) takes one more step at the end
of every hand played at one of its seats (the play loop's ``hands_ended``): it reads the
hand's final state (:func:`~poolshark.league.inputs.encode_hand_ends`) and keeps the game
state that step writes, so the memory learns from what followed its last decision.

A :class:`Recorder` (the learner's, in ``league.rollout``) is shown every decision: the
inputs the network saw, whether it started a new hand, the action, the size and their
log-probability, which is what REINFORCE needs to replay the trajectory with gradients;
and every end-of-hand step, which the replay takes in its place among the decisions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import torch

from poolshark.agents.protocol import AgentError, Decisions, EndedHands, Moves
from poolshark.engine.batched import BatchedTables
from poolshark.league import CHECKPOINT_KIND
from poolshark.league.actions import (
    BET,
    ENGINE_MOVE,
    masked_log_probabilities,
    raise_amounts,
    sample_actions,
    sample_sizes,
    size_log_prob,
)
from poolshark.league.inputs import InputArrays, PolicyInputs, encode, encode_hand_ends
from poolshark.league.nets import PokerNet, build_net
from poolshark.training.common import read_checkpoint_of

Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

CHECKPOINT_FORMAT = "poolshark-league-v1"


class Recorder(Protocol):
    """What the learner's rollout keeps of each decision."""

    def record(
        self,
        decisions: Decisions,
        inputs: InputArrays,
        new_hand: Bools,
        actions: Int64s,
        sizes: Float32s,
        log_probs: Float32s,
    ) -> None: ...

    def record_hand_ends(
        self, tables: Int64s, seats: Int64s, inputs: InputArrays, new_hand: Bools
    ) -> None: ...


class LeagueAgent:
    """Plays a league network, with per-seat recurrent state (see the module docstring).

    ``shuffle_opponents`` permutes the opponent tokens of every decision at random (the
    learner's training rollouts); ``recorder`` is shown each decision. ``wipe_memory``
    plays the network with its game state cleared at every new hand (and no end-of-hand
    step): the same weights without their memory, the ablation of the memory experiment.
    """

    def __init__(
        self,
        net: PokerNet,
        *,
        device: str = "cpu",
        shuffle_opponents: bool = False,
        recorder: Recorder | None = None,
        wipe_memory: bool = False,
    ) -> None:
        self.device = torch.device(device)
        self.net = net.to(self.device).eval()
        self.shuffle_opponents = shuffle_opponents
        self.recorder = recorder
        self.wipe_memory = wipe_memory or not net.cross_hand_memory
        self._hand: Float32s = np.zeros((0, 0, net.hand_state_dim), dtype=np.float32)
        self._game: Float32s = np.zeros((0, 0, net.game_state_dim), dtype=np.float32)
        self._hand_id: Int64s = np.zeros((0, 0), dtype=np.int64)
        self._batch: BatchedTables | None = None

    def _storage(self, batch: BatchedTables) -> None:
        """Fresh states for a new batch of tables: a new match forgets the last one's
        opponents (the same agent object may play several matches in a row)."""
        if batch is not self._batch:
            self._batch = batch
            tables, seats = batch.size, batch.config.seats
            self._hand = np.zeros((tables, seats, self.net.hand_state_dim), dtype=np.float32)
            self._game = np.zeros((tables, seats, self.net.game_state_dim), dtype=np.float32)
            self._hand_id = np.full((tables, seats), -1, dtype=np.int64)

    def new_games(self, tables: Int64s) -> None:
        """Clear both states at every seat of ``tables`` (a new game starts there)."""
        if self._hand_id.shape[0]:
            self._hand[tables] = 0.0
            self._game[tables] = 0.0
            self._hand_id[tables] = -1

    def act(self, decisions: Decisions) -> Moves:
        """Sample an action (and a size for bets) at every decision; update the states."""
        batch = decisions.batch
        if batch.config.seats != self.net.seats:
            raise AgentError(
                f"this league network plays {self.net.seats} seats, not {batch.config.seats}"
            )
        self._storage(batch)
        tables, seats = decisions.tables, decisions.seats
        inputs = encode(decisions)
        if self.shuffle_opponents and inputs.opponents.shape[1] > 1:
            order = np.argsort(decisions.rng.random(inputs.opponents.shape[:2]), axis=1)
            shuffled = np.take_along_axis(inputs.opponents, order[:, :, None], axis=1)
            inputs = InputArrays(
                inputs.cards, inputs.history, inputs.scalars, shuffled, inputs.mask
            )
        new_hand = self._start_hands(tables, seats, decisions.hand_ids)
        hand = torch.from_numpy(self._hand[tables, seats]).to(self.device)
        game = torch.from_numpy(self._game[tables, seats]).to(self.device)
        with torch.no_grad():
            output = self.net(PolicyInputs.of(inputs, self.device), hand, game)
            log_p = masked_log_probabilities(
                output.action_logits, torch.from_numpy(inputs.mask).to(self.device)
            )
        probabilities = log_p.exp().cpu().numpy().astype(np.float64)
        actions = sample_actions(probabilities, decisions.rng)
        sizes = sample_sizes(output.bet_mean, output.bet_std, decisions.rng)
        self._hand[tables, seats] = output.hand_state.cpu().numpy()
        self._game[tables, seats] = output.game_state.cpu().numpy()
        amounts = raise_amounts(sizes, decisions.min_raise_to, decisions.max_raise_to)
        if self.recorder is not None:
            rows = torch.arange(decisions.size)
            chosen = log_p[rows, torch.from_numpy(actions)]
            with torch.no_grad():
                size_part = size_log_prob(
                    output.bet_mean, output.bet_std, torch.from_numpy(sizes).to(self.device)
                )
            betting = torch.from_numpy(actions == BET).to(self.device)
            total = chosen + torch.where(betting, size_part, torch.zeros_like(size_part))
            log_probs = total.cpu().numpy().astype(np.float32)
            self.recorder.record(decisions, inputs, new_hand, actions, sizes, log_probs)
        return Moves(ENGINE_MOVE[actions], np.where(actions == BET, amounts, 0))

    def hands_ended(self, ended: EndedHands) -> None:
        """The end-of-hand step at each of this agent's seats (only for a network with
        ``hand_end_step``): one forward pass on the final state, keeping its states."""
        if self.wipe_memory or not self.net.hand_end_step:
            return
        rows, seats = np.nonzero(ended.owners == ended.agent)
        if rows.size == 0:
            return
        self._storage(ended.batch)
        tables = ended.tables[rows]
        new_hand = self._start_hands(tables, seats, ended.hand_ids[rows])
        inputs = encode_hand_ends(ended.batch, tables, seats)
        hand = torch.from_numpy(self._hand[tables, seats]).to(self.device)
        game = torch.from_numpy(self._game[tables, seats]).to(self.device)
        with torch.no_grad():
            output = self.net(PolicyInputs.of(inputs, self.device), hand, game)
        self._hand[tables, seats] = output.hand_state.cpu().numpy()
        self._game[tables, seats] = output.game_state.cpu().numpy()
        if self.recorder is not None:
            self.recorder.record_hand_ends(tables, seats, inputs, new_hand)

    def _start_hands(self, tables: Int64s, seats: Int64s, hand_ids: Int64s) -> Bools:
        """Clear the hand state (and without cross-hand memory the game state) where
        ``hand_ids`` starts a new hand at a seat; which rows did."""
        new_hand: Bools = self._hand_id[tables, seats] != hand_ids
        self._hand[tables[new_hand], seats[new_hand]] = 0.0
        if self.wipe_memory:
            self._game[tables[new_hand], seats[new_hand]] = 0.0
        self._hand_id[tables, seats] = hand_ids
        return new_hand


def checkpoint_payload(
    net: PokerNet, epoch: int, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The dict a league snapshot stores (``torch.load(weights_only=True)`` reads it)."""
    return {
        "kind": CHECKPOINT_KIND,
        "format": CHECKPOINT_FORMAT,
        "epoch": epoch,
        "net_hyperparameters": net.hyperparameters(),
        "model": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        **(extra or {}),
    }


def read_league_checkpoint(path: Path, device: str = "cpu") -> dict[str, Any]:
    """A league checkpoint's dict, read with ``weights_only=True``; errors name the file."""
    return read_checkpoint_of(path, CHECKPOINT_KIND, CHECKPOINT_FORMAT, device, AgentError)


def net_from_payload(payload: dict[str, Any]) -> PokerNet:
    """The network a checkpoint dict holds."""
    net = build_net(dict(payload["net_hyperparameters"]))
    net.load_state_dict(payload["model"])
    return net.eval()


def load_league_agent(path: Path, *, device: str = "cpu", wipe_memory: bool = False) -> LeagueAgent:
    """The agent of a league checkpoint (a snapshot in a run's ``pool/`` or its ``last.pt``);
    ``wipe_memory`` plays it with its game state cleared every hand."""
    net = net_from_payload(read_league_checkpoint(path, device))
    return LeagueAgent(net, device=device, wipe_memory=wipe_memory)
