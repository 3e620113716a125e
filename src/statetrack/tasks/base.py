"""The task protocol shared by every task: a seeded sampler of (inputs, targets, mask) batches.

A task turns a ``torch.Generator`` into a batch of token sequences with their answers::

    task = make_task(ParityConfig())
    batch = task.sample(torch.Generator().manual_seed(0), batch=4, length=6)
    batch.inputs   # (B, T) token ids in [0, vocab_size)
    batch.targets  # (B, T) class ids in [0, num_classes), IGNORE where no answer is defined
    batch.mask     # (B, T) True where the training loss is taken (every position or the last)

Conventions (one word per concept, as in the rest of the package):

- *length* is the number of input tokens of a sequence. A causal model's output at position t
  (0-based) answers the prefix of length t + 1.
- *prefix-closed* tasks (parity, modular addition, FSMs, word problems) define an answer after every
  token, so one batch at the longest test length yields accuracy at every shorter length.
  Tasks that only answer after an ``=`` token (modular arithmetic in the NE format) are not.
- Padding is on the right with the token ``pad_id`` (the last id), never supervised; all models are
  causal, so it never changes an earlier output.
- Generation runs on the CPU and depends only on the generator state: the same seed gives the same
  batch on every machine.

Used in: every claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from statetrack.config import ConfigError, TaskConfig

IGNORE = -100  # target id where no answer is defined (cross-entropy's ignore_index)


@dataclass
class Batch:
    """A padded batch. Shapes: inputs, targets, mask (B, T); lengths (B,)."""

    inputs: torch.Tensor
    targets: torch.Tensor
    mask: torch.Tensor
    lengths: torch.Tensor

    def to(self, device: torch.device | str) -> Batch:
        return Batch(*(t.to(device) for t in (self.inputs, self.targets, self.mask, self.lengths)))


class Task:
    """Base class. Subclasses set ``Config`` and implement ``_generate`` and the size properties."""

    Config: ClassVar[type[TaskConfig]]
    prefix_closed: ClassVar[bool] = True

    def __init__(self, cfg: TaskConfig):
        self.cfg = cfg

    # -- sizes ----------------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of input token ids, including the padding token."""
        raise NotImplementedError

    @property
    def num_classes(self) -> int:
        """Number of answer classes K (the model's head size)."""
        raise NotImplementedError

    @property
    def chance(self) -> float:
        """Accuracy of a uniform guess, 1/K: the zero of normalized accuracy."""
        return 1.0 / self.num_classes

    @property
    def pad_id(self) -> int:
        return self.vocab_size - 1

    def min_length(self) -> int:
        """The shortest length this task can produce."""
        return 1

    def valid_length(self, length: int) -> int:
        """The longest producible length <= ``length`` (identity for most tasks)."""
        return length

    # -- sampling -------------------------------------------------------------------------------
    def _generate(self, gen: torch.Generator, batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Return inputs (B, T) and answers (B, T) for sequences of exactly ``length`` tokens.

        Answers hold the class id wherever one is defined and IGNORE elsewhere.
        """
        raise NotImplementedError

    def sample(self, gen: torch.Generator, batch: int, length: int) -> Batch:
        """``batch`` sequences of exactly ``length`` tokens."""
        self._check_length(length)
        inputs, targets = self._generate(gen, batch, self.valid_length(length))
        lengths = torch.full((batch,), inputs.shape[1], dtype=torch.long)
        return Batch(inputs, targets, self._mask(targets, lengths), lengths)

    def sample_range(self, gen: torch.Generator, batch: int, min_len: int, max_len: int) -> Batch:
        """``batch`` sequences whose lengths are drawn uniformly from [min_len, max_len], right-padded."""
        self._check_length(min_len)
        if min_len > max_len:
            raise ConfigError(f"length range [{min_len}, {max_len}] is empty: min_len must be <= max_len")
        if min_len == max_len:
            return self.sample(gen, batch, min_len)
        drawn = torch.randint(min_len, max_len + 1, (batch,), generator=gen)  # (B,)
        drawn = torch.tensor([self.valid_length(int(n)) for n in drawn])  # (B,)
        width = int(drawn.max())
        inputs = torch.full((batch, width), self.pad_id, dtype=torch.long)  # (B, T)
        targets = torch.full((batch, width), IGNORE, dtype=torch.long)  # (B, T)
        # Sequences of one length are generated together: few calls, and deterministic given gen.
        for n in sorted(set(drawn.tolist())):
            rows = (drawn == n).nonzero().squeeze(1)  # (b,)
            x, y = self._generate(gen, len(rows), n)
            inputs[rows, :n] = x
            targets[rows, :n] = y
        return Batch(inputs, targets, self._mask(targets, drawn), drawn)

    def _mask(self, targets: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        defined = targets != IGNORE  # (B, T)
        if self.cfg.supervision == "every":
            return defined
        # "final": only the last defined answer of each sequence.
        pos = torch.arange(targets.shape[1])  # (T,)
        last = torch.where(defined, pos, -1).max(dim=1).values  # (B,)
        return pos[None, :] == last[:, None]

    def _check_length(self, length: int) -> None:
        if not isinstance(length, int) or isinstance(length, bool) or length < self.min_length():
            raise ConfigError(
                f"length {length!r} is not allowed for task {self.cfg.name!r}: it must be an integer >= {self.min_length()}"
            )

    def describe(self) -> dict[str, object]:
        return {
            "name": self.cfg.name,
            "vocab_size": self.vocab_size,
            "num_classes": self.num_classes,
            "chance": self.chance,
            "prefix_closed": self.prefix_closed,
        }
