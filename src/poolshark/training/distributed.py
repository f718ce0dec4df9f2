"""Data-parallel training over several processes (torch DDP): one global batch, split.

A trainer that runs under a process group sees a :class:`Distributed` (:func:`current`):
every process takes its share of each *global* batch (:meth:`Distributed.local_rows`,
the rows ``rank, rank + W, ...``), the gradients are averaged by
:class:`~torch.nn.parallel.DistributedDataParallel`, and a mean loss is written as the
process's part of the *global* mean (:meth:`Distributed.global_count`), so one step over
``W`` processes is the step one process would take over the whole batch, up to float
summation order. Only the main process (rank 0) writes checkpoints and logs.

:func:`launch` runs a function in ``devices`` processes on this machine: the gloo backend
on CPU, NCCL on CUDA (one GPU per process, ``cuda:RANK``). Without a process group
everything here is the identity: :data:`SINGLE` is a world of one.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import Tensor, nn
from torch.multiprocessing.spawn import ProcessRaisedException, start_processes

Result = TypeVar("Result")
Item = TypeVar("Item")


class LaunchError(ValueError):
    """A launched process failed; the message names it and ends with its error's line."""


@dataclass(frozen=True)
class Distributed:
    """This process's place in a data-parallel world of ``world_size`` processes."""

    rank: int = 0
    world_size: int = 1

    @property
    def active(self) -> bool:
        """Whether more than one process shares the work."""
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        """The process that writes checkpoints, logs and the result (rank 0)."""
        return self.rank == 0

    def local_rows(self, rows: Tensor) -> Tensor:
        """This process's share of a global batch: every ``world_size``-th row from its rank."""
        return rows[self.rank :: self.world_size] if self.active else rows

    def global_count(self, count: Tensor) -> Tensor:
        """The sum of ``count`` over the processes, divided by ``world_size``: the divisor that
        makes a process's loss sum its part of the global mean once DDP averages gradients."""
        if not self.active:
            return count
        total = count.detach().clone()
        dist.all_reduce(total)
        return total / self.world_size

    def total(self, tensor: Tensor, *, differentiable: bool = False) -> Tensor:
        """``tensor`` summed over the processes; ``differentiable``: gradients flow back to
        every process's part (each process must then compute the same loss from it)."""
        if not self.active:
            return tensor
        if differentiable:
            from torch.distributed.nn.functional import all_reduce  # lazy: rarely needed

            summed: Tensor = all_reduce(tensor)  # type: ignore[no-untyped-call]
            return summed
        total = tensor.detach().clone()
        dist.all_reduce(total)
        return total

    def mean(self, value: float) -> float:
        """The mean of a number over the processes (a logged loss, say)."""
        if not self.active:
            return value
        tensor = torch.tensor([value], dtype=torch.float64)
        dist.all_reduce(tensor)
        return float(tensor.item()) / self.world_size

    def wrap(self, model: nn.Module, *, partial: bool = False) -> nn.Module:
        """``model`` under DDP when the world is larger than one, else itself. ``partial``:
        a forward pass may leave some parameters out (a part for each street, say, and a
        share of the batch without that street), which DDP must then look for."""
        if not self.active:
            return model
        return nn.parallel.DistributedDataParallel(model, find_unused_parameters=partial)

    def gather(self, value: Item) -> list[Item]:
        """Every process's ``value`` (any object that pickles), in rank order, on every
        process: a rollout part each process collected, say."""
        if not self.active:
            return [value]
        values: list[Any] = [None] * self.world_size
        dist.all_gather_object(values, value)
        return values

    def barrier(self) -> None:
        """Wait for every process (after the main one wrote a checkpoint, say)."""
        if self.active:
            dist.barrier()


SINGLE = Distributed()
"""A world of one process: no process group."""


def current() -> Distributed:
    """The running process group's :class:`Distributed`, or :data:`SINGLE` without one."""
    if dist.is_available() and dist.is_initialized():
        return Distributed(dist.get_rank(), dist.get_world_size())
    return SINGLE


def process_device(device: str, world: Distributed) -> str:
    """The device this process of ``world`` trains on: in a data-parallel run on CUDA,
    ``cuda:RANK`` (one GPU per process); otherwise the device the run names (``cuda:1``
    alone stays ``cuda:1``)."""
    return f"cuda:{world.rank}" if world.active and device.startswith("cuda") else device


def free_port() -> int:
    """A TCP port free on the loopback interface now (for the process group's rendezvous)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def launch(
    function: Callable[..., Result], devices: int, *args: Any, device: str = "cpu"
) -> Result:
    """Run ``function(*args)`` in ``devices`` fresh processes joined in one process group
    (gloo on CPU, NCCL on CUDA) and return what rank 0 returned.

    ``function`` and ``args`` must pickle (a module-level function and plain values). A
    process that fails fails the launch: :class:`LaunchError` with its error's last line.
    """
    if devices < 1:
        raise ValueError(f"devices must be at least 1, got {devices}")
    if device.startswith("cuda") and devices > torch.cuda.device_count():
        raise ValueError(f"{devices} devices asked for, torch sees {torch.cuda.device_count()}")
    context = mp.get_context("spawn")
    results = context.SimpleQueue()
    address = ("127.0.0.1", free_port())
    try:
        start_processes(  # type: ignore[no-untyped-call]
            _worker,
            args=(devices, address, device, function, args, results),
            nprocs=devices,
            join=True,
            start_method="spawn",
        )
    except ProcessRaisedException as error:
        last = error.msg.strip().splitlines()[-1]
        raise LaunchError(f"process {error.error_index} of {devices} failed: {last}") from None
    result: Result = results.get()
    return result


def _worker(
    rank: int,
    devices: int,
    address: tuple[str, int],
    device: str,
    function: Callable[..., Result],
    args: tuple[Any, ...],
    results: Any,
) -> None:
    """One launched process: join the group, run, hand rank 0's result back, leave."""
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = address[0], str(address[1])
    cuda = device.startswith("cuda")
    if cuda:
        torch.cuda.set_device(rank)
    else:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // devices))
    dist.init_process_group("nccl" if cuda else "gloo", rank=rank, world_size=devices)
    try:
        result = function(*args)
        if rank == 0:
            results.put(result)
    finally:
        dist.destroy_process_group()
