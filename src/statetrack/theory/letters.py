"""Facts about a task's letters that the theorems' predictions rest on, and what a count-only state can score.

- ``cycle_lengths``: the cycles of each permutation letter of a state machine. A letter with a cycle of
  length k ≥ 3, repeated, counts mod k, which one layer with real eigenvalues cannot do (NE Thm 2's
  argument: its state on a^n is eventually 2-periodic).
- ``letters_commute`` (a machine's letters), ``tokens_commute`` (a word problem's tokens): whether every
  pair of letters commutes. If not, a model whose transitions commute loses the task (BL Prop 2).
- ``count_only_ceiling``: the best accuracy at lengths 1..L of any predictor that sees only the letter
  counts, which is what a pure multiplicative model with commuting transitions is (BL Prop 2); from
  ``theory.commuting`` (word problems) and ``theory.block_size`` (machines). For a group word problem
  and for a machine whose letters are permutations it never rises with the length (knowing the counts
  of L letters and the last letter is at least as good as knowing the counts of L + 1 letters, and the
  last letter of a permutation adds nothing to a guess of the state before it), so the ceiling at a
  length L bounds every longer length.
- ``ceiling_bound``: that ceiling at one length as normalized accuracy (0 = chance), plus the sampling
  margin of a test set of n sequences (``sampling_margin``), so that a measured score above it is a
  counterexample and not a fluctuation of the test sample.

Worked example (a 3-state machine, letter a = the 3-cycle 0→1→2→0, letter b = the swap 0↔1, 2 fixed)::

    cycle_lengths:   a: [3]     b: [2, 1]
    ab from 0: a(0) = 1, b(1) = 0  → 0      ba from 0: b(0) = 1, a(1) = 2 → 2     so the letters do not commute

Used in: claims/x1/claim.py (its exact checks and the bounds of its ``theorem forbids`` statements),
tests/test_theory_letters.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import torch

from statetrack.tasks.base import Task
from statetrack.theory.commuting import count_only_ceiling as group_ceiling
from statetrack.theory.block_size import count_only_ceiling as table_ceiling

LEVEL = 0.999  # one-sided: a score at the ceiling crosses ceiling + margin by sampling alone once in 1000


def cycle_lengths(table: torch.Tensor) -> list[list[int]]:
    """Per letter of a next-state table (m, k) whose letters are permutations, its cycle lengths, longest first."""
    m, k = table.shape
    out = []
    for a in range(k):
        seen, lengths = set(), []
        for q in range(m):
            if q in seen:
                continue
            n, p = 0, q
            while p not in seen:
                seen.add(p)
                p, n = int(table[p, a]), n + 1
            lengths.append(n)
        out.append(sorted(lengths, reverse=True))
    return out


def letters_commute(table: torch.Tensor) -> bool:
    """Whether δ(δ(q, a), b) = δ(δ(q, b), a) for every state q and letters a, b of a table (m, k)."""
    k = table.shape[1]
    return all(torch.equal(table[table[:, a], b], table[table[:, b], a]) for a in range(k) for b in range(a + 1, k))


def tokens_commute(mul_table: torch.Tensor, drawn: Sequence[int]) -> bool:
    """Whether every pair of the drawn group elements commutes (``mul_table[a, b]`` = id of a·b)."""
    drawn = [int(x) for x in drawn]
    return all(int(mul_table[a, b]) == int(mul_table[b, a]) for a in drawn for b in drawn)


def count_only_ceiling(task: Task, max_len: int) -> list[float]:
    """Raw accuracy c(1), …, c(max_len) of the best predictor that sees only the letter counts (letters uniform).

    A word problem (``mul_table``, tokens ``elements_drawn``) or a state machine (``table``, from state 0).
    """
    if hasattr(task, "mul_table"):
        return group_ceiling(task.mul_table, max_len, [int(x) for x in task.elements_drawn])

    return table_ceiling(task.table, max_len)


def sampling_margin(p: float, n: int, level: float = LEVEL) -> float:
    """How far the mean score of n independent test sequences can exceed an expected accuracy μ ≤ p by chance,
    once in 1 / (1 − ``level``): z · sqrt(v / n), z the normal's ``level`` quantile, v = p (1 − p) (the largest
    variance of a score in [0, 1] with mean ≤ p, for p ≤ 1/2; 1/4 above). A mean over several test lengths of
    the same sequences varies no more than one length does, so the margin holds for it too."""
    if n < 1 or not 0.0 <= p <= 1.0:
        raise ValueError(f"n={n!r}, p={p!r}: need n >= 1 and p in [0, 1]")
    var = p * (1.0 - p) if p <= 0.5 else 0.25
    return NormalDist().inv_cdf(level) * math.sqrt(var / n)


def normalized(acc: float, chance: float) -> float:
    """(acc − chance) / (1 − chance), as ``evaluate.normalized`` (imported here without its layer)."""
    return (acc - chance) / (1.0 - chance)


def ceiling_bound(task: Task, length: int, num_seqs: int, level: float = LEVEL) -> float:
    """The count-only ceiling at ``length`` plus the sampling margin of ``num_seqs`` sequences, as normalized
    accuracy: no model whose state sees only the letter counts scores above it at ``length`` or beyond (where
    the ceiling never rises), except by a 1 − ``level`` chance of the test sample."""
    c = count_only_ceiling(task, length)[-1]
    return normalized(min(1.0, c + sampling_margin(c, num_seqs, level)), task.chance)


def facts(table: torch.Tensor) -> dict[str, object]:
    """A permutation machine's letters: states, letters, cycle lengths per letter, whether they commute."""
    m, k = table.shape
    return {"states": m, "letters": k, "cycles": cycle_lengths(table), "commute": letters_commute(table)}


__all__ = ["LEVEL", "ceiling_bound", "count_only_ceiling", "cycle_lengths", "facts", "letters_commute",
           "normalized", "sampling_margin", "tokens_commute"]
