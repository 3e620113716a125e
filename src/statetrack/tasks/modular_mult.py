"""Bracketed arithmetic mod m with multiplication: E → d | −d | (d) | (−d) | (E op E), op ∈ {+, −, ×}.

NE Table 5's fourth column ("mod. arithmetic w/ brackets, mult"): the bracketed expressions of
``modular_arithmetic`` (``brackets=True``, Delétang et al.'s grammar as in the NE code) with ×
among the operators, as the NE code's generator does when its ``mult`` flag is set (no released
config sets it; Table 5 reports the column). Every binary operation carries its own brackets, so
there is no precedence to apply: the value is the tree's.

Worked example with m = 5: ``((2×(−3))+4)=`` has 13 input tokens, 12 of them the expression;
2 × (−3) = −6 and −6 + 4 = −2 ≡ 3::

    tokens   (  (  2  ×  (  −  3  )  )  +  4  )  =
    ids      8  8  2  7  8  6  3  9  9  5  4  9  10
    answers  .  .  .  .  .  .  .  .  .  .  .  .  3

(``.`` is IGNORE; ``(−3)`` is a leaf of 4 tokens, ``(2×(−3))`` a node of 8.) The ids are those
of ``modular_arithmetic`` (digits 0..m−1, then + − × ( ) = PAD), so one embedding serves both
tasks. Grammar, with n the number of expression tokens (the sequence is the expression of
length − 1 tokens followed by ``=``; the answer, its value mod m, is the only label):

- n = 1: ``d``; n = 2: ``−d``; n = 3: ``(d)``; n = 4: ``(−d)``, with d uniform in 0..m−1;
- n ≥ 5: ``(L op R)`` with op uniform over {+, −, ×}, |L| uniform in [1, n − 4] and |R| = n − 3 − |L|.

The task lives in its own module, not as a field of ``modular_arithmetic``: a record's code hash
covers the task's module, so the committed records of the other arithmetic columns keep theirs.

Used in: ne4.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import torch

from statetrack.config import ConfigError, TaskConfig
from statetrack.tasks import register
from statetrack.tasks.base import IGNORE, Task
from statetrack.tasks.modular import CLOSE, EQUALS, MINUS, NUM_SPECIAL, OPEN, PLUS, TIMES

OPERATORS = (PLUS, MINUS, TIMES)  # drawn uniformly at every inner node


@dataclass(frozen=True)
class ModularArithmeticMultConfig(TaskConfig):
    """Bracketed expressions over 0..m−1 with +, − and ×; one answer at ``=`` (K = m, chance 1/m).

    Fields:
        modulus: m (NE uses 5).
    """

    name: ClassVar[str] = "modular_arithmetic_mult"
    modulus: int = 5

    def check(self) -> None:
        if self.modulus < 2:
            raise ConfigError(f"{self._prefix()}modulus={self.modulus!r} is not allowed: it must be >= 2")


@register
class ModularArithmeticMult(Task):
    """Bracketed expressions mod m with × (ids as in ``modular_arithmetic``); the answer follows ``=``.

    Used in: ne4.
    """

    Config = ModularArithmeticMultConfig
    cfg: ModularArithmeticMultConfig
    prefix_closed = False

    @property
    def vocab_size(self) -> int:
        return self.cfg.modulus + NUM_SPECIAL

    @property
    def num_classes(self) -> int:
        return self.cfg.modulus

    def min_length(self) -> int:
        return 2  # a digit and '='

    def _generate(self, gen, batch, length):
        m = self.cfg.modulus
        # Fewer than 2 draws per token suffice (<= 3 per inner node, which spans >= 5 tokens, and 1 per leaf);
        # drawing them all at once makes the result depend on `gen` alone. float64: floor(u * k) is uniform.
        uniforms = torch.rand((batch, 2 * length), generator=gen, dtype=torch.float64).tolist()  # (B, 2T)
        inputs = torch.empty((batch, length), dtype=torch.long)  # (B, T)
        targets = torch.full((batch, length), IGNORE, dtype=torch.long)  # (B, T)
        for b, row in enumerate(uniforms):
            draws = iter(row)
            tokens: list[int] = []
            value = expression(length - 1, lambda k: int(next(draws) * k), m, tokens)
            tokens.append(m + EQUALS)
            inputs[b] = torch.tensor(tokens)
            targets[b, -1] = value
        return inputs, targets


def expression(n: int, draw: Callable[[int], int], m: int, out: list[int]) -> int:
    """Append a random bracketed expression of exactly ``n`` tokens (with ×) to ``out``; return its value mod m.

    The grammar is the module docstring's; ``draw(k)`` returns an integer uniform in [0, k).
    """
    if n <= 4:
        d = draw(m)
        minus = n in (2, 4)
        body = [m + MINUS, d] if minus else [d]
        out.extend([m + OPEN, *body, m + CLOSE] if n >= 3 else body)
        return (-d) % m if minus else d
    left = 1 + draw(n - 4)
    op = OPERATORS[draw(len(OPERATORS))]
    out.append(m + OPEN)
    a = expression(left, draw, m, out)
    out.append(m + op)
    b = expression(n - 3 - left, draw, m, out)
    out.append(m + CLOSE)
    return (a + b) % m if op == PLUS else (a - b) % m if op == MINUS else a * b % m
