"""How far a Z_m rotation model's signed angles are from a homomorphism, and how long its count lasts.

A 2×2 rotation R(θ) has the eigenvalues e^{±iθ} for θ and −θ alike, so Z_m is read on the signed angles θ_v
(``theory.spectral_readings.turns``, in units of 2π/m): a solution has θ_v ≡ v·θ₁ (mod m). If token v turns
δ_v too far, a uniformly random word of T tokens drifts by about T·δ̄ (δ̄ the mean over tokens), and half a
spacing, π/m, moves the answer: the count is lost after the **drift horizon** (π/m) / |δ̄| tokens.

Used in: notebooks/x2_eigenvalue_explorer.md (the drift table), tests/test_page_readings_ne7_x2.py.
"""

from __future__ import annotations

import math
from typing import Any

def homomorphism_miss(turns: dict[int, float], m: int) -> float:
    """max_v |θ_v − v·θ₁| modulo m, in units of 2π/m (0 for a homomorphism; ≥ ½: a token nearer another multiple)."""
    return max(abs((turns[v] - v * turns[1] + m / 2) % m - m / 2) for v in range(m))


def mean_error(turns: dict[int, float], m: int) -> float:
    """The signed mean δ̄ of each token's angle error θ_v − round(θ_v), in radians."""
    return sum(turns[v] - round(turns[v]) for v in range(m)) / m * 2 * math.pi / m


def drift_horizon(delta: float, m: int) -> float:
    """The tokens after which a mean error of ``delta`` radians per token has drifted half a spacing, π/m."""
    return (math.pi / m) / abs(delta) if delta else float("inf")


def drift_rows(turns: Any, longest: dict[str, int]) -> list[dict[str, Any]]:
    """Per rotation run (a frame of ``readings.rotation_turns`` rows: panel, seed, token, turns, m, score): θ₁, the
    homomorphism miss, the mean error δ̄, the drift horizon and the panel's longest test length (``longest``)."""
    out = []
    for (panel, seed), run in turns.groupby(["panel", "seed"]):
        m, t = int(run["m"].iloc[0]), run.set_index("token")["turns"]
        delta = mean_error(t, m)
        out.append({"run": f"{panel}, seed {seed}", "test (normalized)": float(run["score"].iloc[0]),
                    "θ_1 / (2π/m)": float(t[1]), "homomorphism miss / (2π/m)": float(homomorphism_miss(t, m)),
                    "mean δ (rad)": float(delta), "drift horizon (tokens)": float(drift_horizon(delta, m)),
                    "longest test": int(longest[panel])})
    return out


__all__ = ["drift_horizon", "drift_rows", "homomorphism_miss", "mean_error"]
