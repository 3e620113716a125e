"""Modular addition (Z_m) and modular arithmetic expressions mod m.

Worked examples, all with m = 5.

``modular_addition``: the answer after each token is the running sum mod 5 (input ids are the
numbers 0..4, 5 is padding)::

    inputs   3 4 1 0 2
    answers  3 2 3 3 0          (sums so far: 3 7 8 8 10, taken mod 5)

``modular_arithmetic``, ``format="ne"`` without brackets: the paper's example ``2 − 3 − 3 × 2 = 3``
(× first: 2 − 3 − 6 = −7 ≡ 3). Its 8 input tokens and their answers (``.`` is IGNORE)::

    tokens   2  −  3  −  3  ×  2  =
    ids      2  6  3  6  3  7  2  10
    answers  .  .  .  .  .  .  .  3

``format="ne"`` with brackets: ``(3−(−1))=`` has 9 input tokens; 3 − (−1) = 4::

    tokens   (  3  −  (  −  1  )  )  =
    ids      8  3  6  8  6  1  9  9  10
    answers  .  .  .  .  .  .  .  .  4

``format="per_step"``: the same digits and operators without ``=``; the answer at each number is
the value of the expression ending there (2; 2−3 = −1; 2−3−3 = −4; 2−3−3×2 = −7)::

    tokens   2  −  3  −  3  ×  2
    answers  2  .  4  .  1  .  3

Token ids of ``modular_arithmetic`` (m = 5 in brackets), the same with and without brackets:

| token | digits 0..m−1 | ``+`` | ``−`` | ``×`` | ``(`` | ``)`` | ``=`` | PAD |
|-------|---------------|-------|-------|-------|-------|-------|-------|-----|
| id    | 0..m−1        | m (5) | m+1 (6) | m+2 (7) | m+3 (8) | m+4 (9) | m+5 (10) | m+6 (11) |

For m = 5 this is the id table of the NE code's bracket task (official NE code); the NE code's
no-bracket task uses other ids (PAD 0, digits d+5), which changes nothing for a learned embedding.

Lengths count input tokens. NE's "length 2n+1" (n numbers, n − 1 operators, ``=`` and the answer
token) is our length 2n: the answer is a target, not an input. So without brackets an NE
sequence has an even length >= 2 (``valid_length`` rounds down); with brackets it is an expression
of exactly length − 1 tokens followed by ``=``, and any length >= 2 exists.

Implements NE Table 3's tasks (mod. arithmetic with and without brackets) and BL's (modular
addition; modular arithmetic, whose grammar BL does not state); see the book's page *What the papers
report* (book/papers.md). How the CPU presets on them were chosen is on book/recipes.md.

Used in: bl2, bl4, bl5, bl6, bl7, ne4.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch

from statetrack.config import ConfigError, TaskConfig
from statetrack.tasks import register
from statetrack.tasks.base import IGNORE, Task

# Offsets of the non-digit tokens above the modulus m (see the id table in the module docstring).
PLUS, MINUS, TIMES, OPEN, CLOSE, EQUALS = range(6)
NUM_SPECIAL = 7  # the six above plus PAD


def _check_modulus(cfg: TaskConfig, modulus: int) -> None:
    if modulus < 2:
        raise ConfigError(f"{cfg._prefix()}modulus={modulus!r} is not allowed: it must be >= 2")


# ----------------------------------------------------------------------------- modular addition


@dataclass(frozen=True)
class ModularAdditionConfig(TaskConfig):
    """Running sum of numbers in 0..m−1, mod m (BL's Z_m task; K = m, chance 1/m).

    Fields:
        modulus: m, the group order (BL uses m ∈ {2, 3, 5, 10, 25, 50}; m = 2 is parity).
    """

    name: ClassVar[str] = "modular_addition"
    modulus: int = 5

    def check(self) -> None:
        _check_modulus(self, self.modulus)


@register
class ModularAddition(Task):
    """Z_m: the answer after each number is the sum so far mod m. Input ids 0..m−1, PAD m.

    Used in: bl2, bl5, bl6, bl7.
    """

    Config = ModularAdditionConfig
    cfg: ModularAdditionConfig

    @property
    def vocab_size(self) -> int:
        return self.cfg.modulus + 1  # the numbers and the padding token m

    @property
    def num_classes(self) -> int:
        return self.cfg.modulus

    def _generate(self, gen, batch, length):
        m = self.cfg.modulus
        numbers = torch.randint(0, m, (batch, length), generator=gen)  # (B, T)
        return numbers, numbers.cumsum(dim=1) % m  # (B, T), (B, T)


# ----------------------------------------------------------------------------- modular arithmetic


@dataclass(frozen=True)
class ModularArithmeticConfig(TaskConfig):
    """The value mod m of an arithmetic expression over the digits 0..m−1 (K = m, chance 1/m).

    Fields:
        modulus: m (NE uses 5).
        brackets: False: ``number op number ... number`` with op uniform over {+, −, ×} and ×
            taking precedence (NE "w/o brackets"). True: a recursively generated bracketed
            expression with op ∈ {+, −} and unary minus (NE "w/ brackets"; × unused, as in the NE
            code's ``mult=False``). Only with ``format="ne"``.
        format: "ne": the expression is followed by ``=`` and the only answer is at ``=`` (the NE /
            Delétang et al. protocol; not prefix-closed). "per_step": no ``=``; the answer at every
            number is the value of the expression ending there, operators have no answer
            (prefix-closed). "per_step" is our guess at BL's modular arithmetic, whose grammar BL
            does not give (book/papers.md); it is an inference, not BL's stated protocol.
    """

    name: ClassVar[str] = "modular_arithmetic"
    modulus: int = 5
    brackets: bool = False
    format: Literal["ne", "per_step"] = "ne"

    def check(self) -> None:
        _check_modulus(self, self.modulus)
        if self.brackets and self.format == "per_step":
            raise ConfigError(
                f"{self._prefix()}brackets={self.brackets!r} with format={self.format!r} is not allowed: "
                "bracketed expressions exist only in format 'ne'"
            )


@register
class ModularArithmetic(Task):
    """Expressions mod m; ids in the module docstring's table, answers are values in 0..m−1.

    Without brackets, numbers sit at even positions and operators at odd ones. The NE format
    appends ``=`` and answers only there; "per_step" answers at every number.

    Used in: ne4, bl4.
    """

    Config = ModularArithmeticConfig
    cfg: ModularArithmeticConfig
    prefix_closed = False  # the NE format; set per instance in __init__

    def __init__(self, cfg: ModularArithmeticConfig):
        super().__init__(cfg)
        # Only "per_step" answers after every token; the NE format answers only at '='.
        self.prefix_closed = cfg.format == "per_step"

    @property
    def vocab_size(self) -> int:
        return self.cfg.modulus + NUM_SPECIAL

    @property
    def num_classes(self) -> int:
        return self.cfg.modulus

    def min_length(self) -> int:
        return 1 if self.cfg.format == "per_step" else 2  # NE: at least one number and '='

    def valid_length(self, length: int) -> int:
        if self.cfg.format == "ne" and not self.cfg.brackets:
            return length - length % 2  # n numbers, n − 1 operators and '=': 2n tokens
        return length

    def _generate(self, gen, batch, length):
        if self.cfg.brackets:
            return self._generate_brackets(gen, batch, length)
        m = self.cfg.modulus
        if self.cfg.format == "ne":
            n = length // 2  # numbers; the operators between them fill the odd positions
            digits = torch.randint(0, m, (batch, n), generator=gen)  # (B, n)
            ops = torch.randint(0, 3, (batch, n - 1), generator=gen)  # (B, n-1)
            inputs = torch.empty((batch, length), dtype=torch.long)  # (B, T)
            inputs[:, 0::2] = digits
            inputs[:, 1:-1:2] = m + ops
            inputs[:, -1] = m + EQUALS
            targets = torch.full((batch, length), IGNORE, dtype=torch.long)  # (B, T)
            targets[:, -1] = _running_values(digits, ops, m)[:, -1]
            return inputs, targets
        # per_step: a number at every even position; an even length ends on a dangling operator.
        n = (length + 1) // 2
        digits = torch.randint(0, m, (batch, n), generator=gen)  # (B, n)
        ops = torch.randint(0, 3, (batch, length // 2), generator=gen)  # (B, T//2)
        inputs = torch.empty((batch, length), dtype=torch.long)  # (B, T)
        inputs[:, 0::2] = digits
        inputs[:, 1::2] = m + ops
        targets = torch.full((batch, length), IGNORE, dtype=torch.long)  # (B, T)
        targets[:, 0::2] = _running_values(digits, ops[:, : n - 1], m)
        return inputs, targets

    def _generate_brackets(self, gen, batch, length):
        m = self.cfg.modulus
        # One expression needs fewer than `length` uniform draws (<= 2 per bracket pair, 1 per
        # leaf); drawing them all up front keeps the per-sequence Python loop cheap and makes the
        # result depend on `gen` alone. float64, so floor(u * n) is uniform to ~1e-16.
        uniforms = torch.rand((batch, 2 * length), generator=gen, dtype=torch.float64).tolist()  # (B, 2T)
        inputs = torch.empty((batch, length), dtype=torch.long)  # (B, T)
        targets = torch.full((batch, length), IGNORE, dtype=torch.long)  # (B, T)
        for b, row in enumerate(uniforms):
            draws = iter(row)
            tokens: list[int] = []
            value = _bracket_expression(length - 1, lambda n: int(next(draws) * n), m, tokens)
            tokens.append(m + EQUALS)
            inputs[b] = torch.tensor(tokens)
            targets[b, -1] = value
        return inputs, targets


def _running_values(digits: torch.Tensor, ops: torch.Tensor, m: int) -> torch.Tensor:
    """Value mod m of every prefix ``d_0 op_0 d_1 ... d_i`` of an expression without brackets.

    × takes precedence: keep the sum of the completed terms and the current (signed) product term;
    the value so far is their sum. Everything stays in 0..m−1 because reduction mod m is a ring map.

    Args:
        digits: (B, n) numbers in 0..m−1.
        ops: (B, n−1) operators, 0 = +, 1 = −, 2 = ×.
    Returns:
        (B, n) the value after each number.
    """
    total = torch.zeros_like(digits[:, 0])  # (B,) sum of the completed terms
    term = digits[:, 0] % m  # (B,) the current product term, with its sign
    values = [term]
    for i in range(1, digits.shape[1]):
        op, d = ops[:, i - 1], digits[:, i]  # (B,), (B,)
        times = op == TIMES
        total = torch.where(times, total, (total + term) % m)  # (B,)
        term = torch.where(times, term * d % m, torch.where(op == PLUS, d, (-d) % m))  # (B,)
        values.append((total + term) % m)
    return torch.stack(values, dim=1)  # (B, n)


def _bracket_expression(n: int, draw: Callable[[int], int], m: int, out: list[int]) -> int:
    """Append a random bracketed expression of exactly ``n`` tokens to ``out``; return its value mod m.

    The grammar of Delétang et al. as in the official NE code: lengths 1–4 are ``d``,
    ``-d``, ``(d)``, ``(-d)``; longer ones are ``(L op R)`` with op uniform over {+, −}, the left
    length uniform in [1, n−4] and the right length n − 3 − left. ``draw(k)`` returns an integer
    uniform in [0, k).
    """
    if n <= 4:
        d = draw(m)
        minus = n in (2, 4)
        body = [m + MINUS, d] if minus else [d]
        out.extend([m + OPEN, *body, m + CLOSE] if n >= 3 else body)
        return (-d) % m if minus else d
    left = 1 + draw(n - 4)
    op = PLUS if draw(2) == 0 else MINUS
    out.append(m + OPEN)
    a = _bracket_expression(left, draw, m, out)
    out.append(m + op)
    b = _bracket_expression(n - 3 - left, draw, m, out)
    out.append(m + CLOSE)
    return (a + b) % m if op == PLUS else (a - b) % m
