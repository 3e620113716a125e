"""Parity: after each bit, is the number of ones so far odd?

Worked example (length 6; input ids are the bits, 2 is padding)::

    inputs   1 0 1 1 0 1
    answers  1 1 0 1 1 0        (ones so far: 1 1 2 3 3 4, taken mod 2)

With ``supervision="final"`` only the last answer (0) is a training label, the NE protocol
(in the official NE code the answer is predicted at the last-bit position). With ``"every"`` each answer is a
label, the protocol of our quick preset (book/recipes.md). Parity is Z_2, the smallest group whose
word problem needs a negative eigenvalue (NE Thm 1).

Used in: ne1, ne4, bl8.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from statetrack.config import TaskConfig
from statetrack.tasks import register
from statetrack.tasks.base import Task


@dataclass(frozen=True)
class ParityConfig(TaskConfig):
    """Parity of a random bit string (|Σ| = 2, K = 2, chance 0.5)."""

    name: ClassVar[str] = "parity"


@register
class Parity(Task):
    Config = ParityConfig

    @property
    def vocab_size(self) -> int:
        return 3  # bits 0, 1 and the padding token 2

    @property
    def num_classes(self) -> int:
        return 2

    def _generate(self, gen, batch, length):
        bits = torch.randint(0, 2, (batch, length), generator=gen)  # (B, T)
        return bits, bits.cumsum(dim=1) % 2  # (B, T), (B, T)
