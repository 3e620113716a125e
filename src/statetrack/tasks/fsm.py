"""Random finite-state machine: after each letter, which state is the machine in?

Worked example (illustrative table: 3 states, 2 letters; ids 0, 1 are the letters, 2 is padding).
Letter 0 is the permutation 0→1→2→0; letter 1 is a non-invertible map that sends 0 and 1 to 0::

    table    state:     0  1  2
             letter 0:  1  2  0
             letter 1:  0  0  2

    inputs   0 0 1 0 0
    answers  1 2 2 0 1          (start in state 0: 0 →1 →2 →2 →0 →1)

The table of a run is drawn once from its own generator seeded with ``table_seed``, so every
training seed and the test set see the same machine. A uniformly random letter is almost never a
permutation, so random words synchronise the machine within a few dozen letters and errors do not
persist; ``num_permutation_letters`` makes the first p letters uniformly
random permutations of the states, which keeps the state information alive.

Implements the BL random state machine task (book/papers.md; BL does not state how δ is sampled,
uniform random δ and start state 0 are our choice) and the demo of BL Prop. 1.

Used in: bl1, bl3, bl5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from statetrack.config import ConfigError, TaskConfig, positive
from statetrack.tasks import register
from statetrack.tasks.base import Task


@dataclass(frozen=True)
class FSMConfig(TaskConfig):
    """A random machine δ: Q × Σ → Q with start state q0 = 0 (K = |Q|, chance 1/|Q|).

    Fields:
        num_states: |Q| = m (BL: m ∈ {2, 5, 10, 25}).
        alphabet_size: |Σ| = k, the number of letters (BL does not say; 4–10 or m are natural).
        table_seed: seed of the generator that draws the table δ (independent of the run seed).
        num_permutation_letters: p in 0..k; letters 0..p−1 are uniformly random permutations of
            Q, letters p..k−1 uniformly random maps Q → Q.
    """

    name: ClassVar[str] = "fsm"
    num_states: int = 5
    alphabet_size: int = 4
    table_seed: int = 0
    num_permutation_letters: int = 0

    def check(self) -> None:
        positive(self, "alphabet_size")
        if self.num_states < 2:
            raise ConfigError(f"{self._prefix()}num_states={self.num_states!r} is not allowed: it must be >= 2")
        if self.table_seed < 0:
            raise ConfigError(f"{self._prefix()}table_seed={self.table_seed!r} is not allowed: it must be >= 0")
        if not 0 <= self.num_permutation_letters <= self.alphabet_size:
            raise ConfigError(
                f"{self._prefix()}num_permutation_letters={self.num_permutation_letters!r} is not allowed: "
                f"it must lie in [0, alphabet_size={self.alphabet_size}]"
            )


@register
class FSM(Task):
    """State tracking in a fixed random machine. Input ids are letters 0..k−1, PAD k.

    Used in: bl1, bl3, bl5.
    """

    Config = FSMConfig
    cfg: FSMConfig

    def __init__(self, cfg: FSMConfig):
        super().__init__(cfg)
        self._table = random_table(cfg.num_states, cfg.alphabet_size, cfg.num_permutation_letters, cfg.table_seed)

    @property
    def table(self) -> torch.Tensor:
        """(m, k) LongTensor: ``table[q, a]`` is the state after letter a in state q."""
        return self._table

    @property
    def vocab_size(self) -> int:
        return self.cfg.alphabet_size + 1  # the letters and the padding token k

    @property
    def num_classes(self) -> int:
        return self.cfg.num_states

    def _generate(self, gen, batch, length):
        letters = torch.randint(0, self.cfg.alphabet_size, (batch, length), generator=gen)  # (B, T)
        return letters, walk(self._table, letters)  # (B, T), (B, T)


def random_table(num_states: int, alphabet_size: int, num_permutation_letters: int, seed: int) -> torch.Tensor:
    """Draw δ as an (m, k) LongTensor from a generator seeded with ``seed``, one letter (column) at a time.

    Letters 0..p−1 are uniform permutations of the m states, the others uniform maps.
    """
    gen = torch.Generator().manual_seed(seed)
    columns = [
        torch.randperm(num_states, generator=gen)  # (m,)
        if a < num_permutation_letters
        else torch.randint(0, num_states, (num_states,), generator=gen)  # (m,)
        for a in range(alphabet_size)
    ]
    return torch.stack(columns, dim=1)  # (m, k)


def walk(table: torch.Tensor, letters: torch.Tensor, start: int = 0) -> torch.Tensor:
    """States after each letter of every sequence, starting in ``start``.

    Args:
        table: (m, k) next-state table, ``table[q, a]``.
        letters: (B, T) letter ids in 0..k−1.
    Returns:
        (B, T) the state after letters 0..t.
    """
    state = torch.full((letters.shape[0],), start, dtype=torch.long)  # (B,)
    states = torch.empty_like(letters)  # (B, T)
    for t in range(letters.shape[1]):
        state = table[state, letters[:, t]]  # (B,)
        states[:, t] = state
    return states
