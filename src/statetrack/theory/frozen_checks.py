"""BL Prop. 3 and its additive-terms ablation as check rows: P(success) = 1 − 2^{−H} for the frozen random diagonal network, and pure beats affine.

The exact parts of bl8 and bl6 as ``Check`` rows. bl8: the sweep of ``frozen_diagonal.sweep`` over its settings (main, the two length-parity traps,
normalized features), judged by the binomial interval of the draws and the proof's per-draw test. bl6: the rows
of ``additive_terms.ablation``, judged by the margin of the pure network's success over the affine one's.

Used in: bl8 (claims/bl8.py, notebooks/bl8_frozen_random_diagonal_parity.md), bl6 (claims/bl6.py,
notebooks/bl6_additive_terms.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from statetrack.check import Check
from statetrack.theory.additive_terms import AblationRow
from statetrack.theory.frozen_diagonal import SweepRow, binomial_interval, sweep



def sweep_settings(settings: Mapping[str, tuple[tuple[str, ...], int, str]], hs: Sequence[int], draws: int,
                   test_words: int, test_len: int, threshold: float) -> dict[str, list[SweepRow]]:
    """P(success) = 1 − 2^{−H} (BL Prop. 3): ``frozen_diagonal.sweep`` per setting (train words, test length
    offset, features) → one ``SweepRow`` per H."""
    return {name: sweep(hs, draws, words, test_len + offset, feature, num_test=test_words, seed=0,
                        threshold=threshold) for name, (words, offset, feature) in settings.items()}


def sweep_rows(part: Mapping[str, Sequence[SweepRow]], n: int) -> list[Check]:
    """P(success) = 1 − 2^{−H} within the 99.9% interval of ``n`` draws, the per-draw test, both length traps, and
    normalized features at most the top of the interval for p = 1/2."""
    out = [Check(label=f"frozen H={r.H}: success", value=r.rate,
                 rule=f"in [{r.interval[0] / n:.2f}, {r.interval[1] / n:.2f}]", passed=bool(r.within),
                 detail=f"predicted 1 - 2^-H = {r.predicted:.4f}; {n} draws") for r in part["main"]]
    agree = min(r.agreement for name in ("main", "odd test", "even test") for r in part[name])
    out.append(Check(label="per draw: success = proof's test", value=agree, rule="= 1", passed=agree == 1.0,
                     detail="main and both length-parity traps, every H and draw"))
    for name, what in (("odd test", "'0','1' -> odd T"), ("even test", "'0','1' -> even T")):
        inside = sum(bool(r.within) for r in part[name]) / len(part[name])
        out.append(Check(label=f"length trap: {what}, H within interval", value=inside, rule="= 1",
                         passed=inside == 1.0,
                         detail="predicted " + ", ".join(f"{r.predicted:.3f}" for r in part[name])))
    top = binomial_interval(n, 0.5)[1] / n
    worst = max(r.rate for r in part["normalized"])
    out.append(Check(label="normalized trap: h/|h| highest success", value=worst, rule=f"<= {top:.2f}",
                     passed=worst <= top, detail="bound: the top of the 99.9% interval for p = 1/2"))
    return out


def ablation_rows(part: Sequence[AblationRow], test_len: int, tolerance: float) -> list[Check]:
    """pure − affine success ≥ ``tolerance`` at every H."""
    return [Check(
        label=f"frozen H={r.H}, length {test_len}: pure − affine success", value=r.pure - r.affine,
        rule=f">= {tolerance:g}", passed=r.pure - r.affine >= tolerance,
        detail=f"pure {r.pure:.2f} (proof {r.predicted_pure:.3f}), affine {r.affine:.2f}; {r.num_draws} draws")
            for r in part]


__all__ = ["ablation_rows", "sweep_rows", "sweep_settings"]
