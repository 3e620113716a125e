"""BL Prop 2, NE Thm 2 on the leaderboard's tasks: their letters do not commute, and a count-only state is bounded.

- ``letter_checks``: the permutation machine's letters do not commute and one has a cycle of length ≥ 3 (NE Thm 2:
  real eigenvalues cannot count mod k ≥ 3); S3's tokens and S5's swaps do not commute (BL Prop 2).
- ``ceiling``, ``count_bound``: the count-only ceiling at lengths 1..L (``letters.count_only_ceiling``, cached) and
  its value at L as normalized accuracy plus the sampling margin of n test sequences (``letters.ceiling_bound``).
- ``ceiling_check``: that ceiling never rises over lengths 1..L, so its value at L bounds every longer length.

Each check is a ``Check``. Used in: claims/x1.py (its exact checks and the bounds of
its ``impossible`` statements).
"""

from __future__ import annotations

import functools
from typing import Any

from statetrack.check import Check
from statetrack.tasks import make_task, task_config
from statetrack.theory import letters



@functools.lru_cache(maxsize=None)
def ceiling(task_cfg: Any, length: int) -> tuple[float, ...]:
    """BL Prop 2: the raw accuracy c(1), …, c(length) of the best count-only predictor on ``task_cfg``'s task."""
    return tuple(letters.count_only_ceiling(make_task(task_cfg), length))


def count_bound(task_cfg: Any, length: int, n: int) -> dict[str, float]:
    """BL Prop 2's bound at ``length`` for n test sequences: ``value`` (normalized, plus the sampling margin, 4
    places) and ``ceiling`` (the normalized ceiling itself)."""
    task = make_task(task_cfg)
    return {"value": round(letters.ceiling_bound(task, length, n), 4),
            "ceiling": letters.normalized(ceiling(task_cfg, length)[-1], task.chance)}


def letter_checks(fsm_task_cfg: Any) -> list[Check]:
    """NE Thm 2, BL Prop 2: the permutation machine's letters (no two commute, a cycle ≥ 3); S3's, S5 swaps' tokens."""
    facts = letters.facts(make_task(fsm_task_cfg).table)
    longest, m = max(max(c) for c in facts["cycles"]), facts["states"]
    out = [Check(label=f"letters: perm FSM ({m} states): letters do not commute", value=float(not facts["commute"]),
                 rule="= 1 (some pair ab ≠ ba)", passed=not facts["commute"],
                 detail="δ(δ(q, a), b) vs δ(δ(q, b), a) over all q, a, b"),
           Check(label=f"letters: perm FSM ({m} states): a letter with a cycle of length ≥ 3", value=float(longest),
                 rule="≥ 3", passed=longest >= 3, detail=f"cycle lengths per letter: {facts['cycles']}")]
    for group, elements in (("S3", "all"), ("S5", "swaps")):
        task = make_task(task_config("word_problem", group=group, elements=elements))
        abelian = letters.tokens_commute(task.mul_table, task.elements_drawn)
        out.append(Check(label=f"letters: {group} ({elements}) tokens do not commute", value=float(not abelian),
                         rule="= 1", passed=not abelian,
                         detail=f"{len(task.elements_drawn)} token elements, |G| = {task.group_order}"))
    return out


def ceiling_check(name: str, task_cfg: Any, length: int) -> Check:
    """BL Prop 2: the count-only ceiling of ``task_cfg`` never rises over lengths 1..``length`` (up to 1e-12)."""
    c = ceiling(task_cfg, length)
    rises = max((b - a for a, b in zip(c, c[1:])), default=0.0)
    return Check(label=f"ceiling: {name}: count-only ceiling never rises over lengths 1–{length}", value=rises,
                 rule="≤ 1e-12", passed=rises <= 1e-12,
                 detail=f"raw accuracy {c[0]:.4f} at length 1, {c[-1]:.4f} at {length}")


__all__ = ["ceiling", "ceiling_check", "count_bound", "letter_checks"]
