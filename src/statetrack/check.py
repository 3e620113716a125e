"""One exact check: what was computed, its value, the predicate applied to it, whether it held.

A *check* is a training-free computation (a construction against ground truth, or a rule across runs) that a
``construction`` statement reads by its ``label``. Theory functions and claim modules build them by keyword:
``Check(label=..., value=..., rule=..., passed=..., detail=...)``.

Used in: ``statetrack.claims`` (every claim's ``checks``, ``verdicts.statements``' verdicts), ``statetrack.display.tables``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Check:
    """A check that is not one run against a threshold: what was computed, its value, the rule, whether it held;
    ``part`` "exact" (a construction against ground truth) or "comparison" (a rule across runs, by the claim module)."""

    label: str
    value: float
    rule: str
    passed: bool
    detail: str = ""
    part: Literal["exact", "comparison"] = "exact"

    def row(self) -> dict[str, Any]:
        return {"part": self.part, "label": self.label, "ours": self.value, "rule": self.rule, "pass": self.passed,
                "detail": self.detail}


__all__ = ["Check"]
