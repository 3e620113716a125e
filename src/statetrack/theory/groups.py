"""Facts about the group that a machine's permutation letters generate (a closure, exact).

A machine's transition table (m states × k letters, ``table[q, a]`` = the state after letter a in
state q) whose letters are permutations of the states generates a group of permutations; its order
tells which representations a tracker can use (``theory.block_size``: a block below 4 cannot track a
5-state machine whose letters generate all of S5, 120 elements).

Hand-worked example: the letters (0 1 2) ↦ (1 2 0) and (0 1 2) ↦ (1 0 2) of a 3-state machine are a
3-cycle and a transposition; their closure under composition is all of S3, order 6.

Used in: bl5 (claims/bl5/claim.py), tests/test_theory_groups.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def letters(table: torch.Tensor | Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """The letters of an (m, k) table as permutations (tuples p with p[q] = the state after the letter in q).

    Raises ValueError if a letter is not a permutation of the m states.
    """
    t = torch.as_tensor(table)
    if t.dim() != 2:
        raise ValueError(f"expected an (m, k) transition table, got shape {tuple(t.shape)}")
    m = t.shape[0]
    out = [tuple(int(x) for x in t[:, a].tolist()) for a in range(t.shape[1])]
    for a, p in enumerate(out):
        if sorted(p) != list(range(m)):
            raise ValueError(f"letter {a} is not a permutation of the {m} states: {p}")
    return out


def group_order(table: torch.Tensor | Sequence[Sequence[int]]) -> int:
    """The order of the group the permutation letters of an (m, k) table generate (breadth-first closure)."""
    gens = letters(table)
    m = len(gens[0]) if gens else 0
    seen = {tuple(range(m))}
    frontier = list(seen)
    while frontier:
        new = []
        for g in frontier:
            for p in gens:
                h = tuple(p[g[i]] for i in range(m))  # apply g, then p
                if h not in seen:
                    seen.add(h)
                    new.append(h)
        frontier = new
    return len(seen)


__all__ = ["group_order", "letters"]
