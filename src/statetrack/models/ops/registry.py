"""A registry of recurrence pairs (reference, fast path) with input makers, for tests and benchmarks.

Each ``OpPair`` names a pure recurrence, its sequential reference, its fast path, and how to make
realistic inputs at a named size; ``benchmarks`` times every pair and measures the fast path's
precision against the fp64 reference, and the tests can iterate over the same list.

Used in: benchmarks/, tests/test_ops*.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

PAIRS: dict[str, OpPair] = {}


@dataclass(frozen=True)
class OpPair:
    """A recurrence with two implementations that must agree.

    Attributes:
        name: short id, e.g. "diagonal".
        reference: the sequential oracle; called as ``reference(*inputs)``.
        fast: the fast path, same contract.
        make_inputs: ``f(size: dict, T: int, dtype, device, gen) -> tuple`` of positional inputs,
            with values in the range the models produce (e.g. eigenvalues in [−1, 1]).
        sizes: named sizes, e.g. {"cpu": {...}, "gpu": {...}}; each dict holds the sizes the input maker
            reads plus "T", the sequence length the benchmark times.
        state_output: index of the final state in the outputs (for the precision table).
        why: one line on why the fast path exists (shown by the benchmark).
    """

    name: str
    reference: Callable[..., Any]
    fast: Callable[..., Any]
    make_inputs: Callable[..., tuple]
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    state_output: int = 1
    why: str = ""


def register_pair(pair: OpPair) -> OpPair:
    PAIRS[pair.name] = pair
    return pair


def generator(seed: int = 0, device: str | torch.device = "cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)
