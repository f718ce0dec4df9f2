"""The range oracle's training loss: the NLL of the true combos plus a batch term that
keeps the predictions, averaged over the questions asked before any of the seat's own
decisions, at the deal (see :func:`oracle_loss`)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from poolshark.oracle.model import BatchTensors
from poolshark.training.distributed import SINGLE, Distributed


@dataclass(frozen=True)
class LossTerms:
    """A batch's loss and its two parts (0-d tensors)."""

    loss: Tensor
    nll: Tensor
    batch_kl: Tensor


def labelled_examples(combo: Tensor, shown: Tensor, mode: str) -> Tensor:
    """(E,) which examples' true combos count in the NLL: known ones (``all``) or shown
    ones (``shown``)."""
    known = combo >= 0
    return known if mode == "all" else known & shown


def oracle_loss(
    log_probs: Tensor,
    combo: Tensor,
    labelled: Tensor,
    blocked: Tensor,
    batch_weight: float,
    deal: Tensor,
    world: Distributed = SINGLE,
) -> LossTerms:
    """Mean NLL of the labelled examples' combos plus ``batch_weight`` x KL(uniform deal
    averaged over the ``deal`` examples || their predictions averaged).

    ``deal`` (E,) marks the questions whose asking does not depend on the seat's cards
    (:attr:`~poolshark.oracle.batches.OracleBatch.deal`): averaged over those, the true
    posterior is the deal. A question after the seat's own decisions is selected (only
    seats that did not fold are asked again), its true ranges average to the range of the
    seats that continued, and a term over it would pull a correct oracle toward uniform.

    In a data-parallel ``world`` the examples are this process's share of the batch: the
    NLL is its part of the global mean, and the KL is the global one (its averages summed
    over the processes, the predictions' sum with gradients), so the averaged gradients are
    the whole batch's.
    """
    if world.active:
        return _shared_oracle_loss(log_probs, combo, labelled, blocked, batch_weight, deal, world)
    rows = torch.nonzero(labelled).squeeze(1)
    nll = -log_probs[rows, combo[rows]].mean() if rows.numel() else log_probs.new_zeros(())
    kl = log_probs.new_zeros(())
    averaged = torch.nonzero(deal).squeeze(1)
    if batch_weight > 0 and averaged.numel():
        target = deal_shares(blocked[averaged], log_probs.dtype).mean(dim=0)
        predicted = torch.exp(log_probs[averaged]).mean(dim=0)
        kl = kl_divergence(target, predicted)
    return LossTerms(loss=nll + batch_weight * kl, nll=nll, batch_kl=kl)


def deal_shares(blocked: Tensor, dtype: torch.dtype) -> Tensor:
    """(E, 1326) each question's uniform deal: its unblocked combos shared alike."""
    possible = (~blocked).to(dtype)
    return possible / possible.sum(dim=1, keepdim=True)


def kl_divergence(target: Tensor, predicted: Tensor) -> Tensor:
    """KL(target || predicted) over the combos ``target`` gives weight (0-d)."""
    present = target > 0
    return (target[present] * (target[present].log() - predicted[present].log())).sum()


def _shared_oracle_loss(
    log_probs: Tensor,
    combo: Tensor,
    labelled: Tensor,
    blocked: Tensor,
    batch_weight: float,
    deal: Tensor,
    world: Distributed,
) -> LossTerms:
    """:func:`oracle_loss` of one process's share of a batch split over ``world`` (every
    process takes part in each sum, whatever its share holds)."""
    rows = torch.nonzero(labelled).squeeze(1)
    count = world.global_count(log_probs.new_tensor(float(rows.numel())))
    nll = -log_probs[rows, combo[rows]].sum() / count.clamp(min=1.0 / world.world_size)
    kl = log_probs.new_zeros(())
    if batch_weight > 0:
        averaged = torch.nonzero(deal).squeeze(1)
        shares = deal_shares(blocked[averaged], log_probs.dtype).sum(dim=0)
        questions = world.total(log_probs.new_tensor(float(averaged.numel())))
        if float(questions) > 0:
            target = world.total(shares) / questions
            predicted = world.total(torch.exp(log_probs[averaged]).sum(dim=0), differentiable=True)
            kl = kl_divergence(target, predicted / questions)
    return LossTerms(loss=nll + batch_weight * kl, nll=nll, batch_kl=kl)


def batch_loss(
    log_probs: Tensor,
    batch: BatchTensors,
    mode: str,
    batch_weight: float,
    world: Distributed = SINGLE,
) -> LossTerms:
    """:func:`oracle_loss` of a batch's predictions ``log_probs`` (E, 1326), with the
    labels the ``mode`` may use (in ``world``, this process's share of the batch)."""
    labelled = labelled_examples(batch.combo, batch.shown, mode)
    return oracle_loss(
        log_probs, batch.combo, labelled, batch.blocked, batch_weight, batch.deal, world
    )
