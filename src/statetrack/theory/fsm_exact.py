"""BL Prop. 1 checked on random machines: W[:, :, σ] = T_σ, h_0 = e_{q0} tracks every one, with and without norm.

The exact part of claim bl1, built from ``fsm_simulation``: ``exact_part`` runs the construction on blocks of random
machines (5–50 states, 2–10 letters) and measures how often rescaling h_0 → c·h_0 (or normalizing) changes a
prediction of the pure and of the additive model; ``check_rows`` turns that into bl1's check rows (label, value,
rule, passed, detail).

Used in: bl1 (claims/bl1.py, notebooks/bl1_bilinear_simulates_any_fsm.md), tests/test_claims_bl1.py.
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.theory import fsm_simulation as fs
from statetrack.theory.threads import single_thread


def exact_part(blocks: list[tuple[int, int, int]], scales: list[float]) -> dict[str, Any]:
    """BL Prop. 1 on blocks of (machines, words per machine, length): ``tracking`` per machine, the fraction of
    predictions changed by h_0 → c·h_0 per c in ``scales`` (``pure_changes``, ``additive_changes``) and by
    normalizing the additive model (``additive_norm_changes``)."""
    with single_thread():
        tracking = []
        for i, (count, num_seqs, length) in enumerate(blocks):
            tracking += [fs.track(task, num_seqs, length, seed=i) for task in fs.random_machines(count, seed=i)]
        task = fs.random_machines(2, seed=99)[1]  # a machine with permutation letters
        words = task.sample(torch.Generator().manual_seed(7), 64, 200).inputs  # (B, T)
        pure = fs.fsm_bilinear(task.table, normalize="none")
        affine, affine_norm = (fs.perturbed_additive(fs.fsm_bilinear(task.table, normalize=n, additive=True), seed=0)
                               for n in ("none", "every_step"))
        with torch.no_grad():
            norm_changes = (affine_norm(words).argmax(-1) != affine(words).argmax(-1)).float().mean().item()
        return {"tracking": tracking, "pure_changes": fs.scale_changes(pure, words, scales),
                "additive_changes": fs.scale_changes(affine, words, scales), "additive_norm_changes": norm_changes,
                "contrast_machine": task.cfg}


def check_rows(part: dict[str, Any], scales: list[float]) -> list[dict[str, Any]]:
    """T_σ e_q = e_{δ(q,σ)}: accuracy 1 and one-hot states; argmax(c·h) = argmax(h) without additive terms only."""
    tr = part["tracking"]
    sizes = f"{len(tr)} machines, {sum(t.num_seqs for t in tr)} words, lengths {sorted({t.length for t in tr})}"
    acc = {mode: min(t.acc[mode] for t in tr) for mode in ("every_step", "none")}
    one_hot = all(all(t.one_hot.values()) for t in tr)
    identical = all(t.identical for t in tr)
    pure, additive = max(part["pure_changes"]), max(part["additive_changes"])
    rows = [("construction: acc (normalized)", acc["every_step"], "= 1", acc["every_step"] == 1.0, sizes),
            ("construction: acc (no norm)", acc["none"], "= 1", acc["none"] == 1.0, sizes),
            ("construction: states exactly one-hot", float(one_hot), "= 1", one_hot,
             "every state equals e_q of the label"),
            ("scale: same predictions, norm vs none", float(identical), "= 1", identical, sizes),
            ("scale: pure h0 scaling changes (max)", pure, "= 0", pure == 0.0,
             f"fraction of predictions changed by h0 -> c h0, c in {scales}"),
            ("additive: h0 scaling changes (max)", additive, "> 0", additive > 0.0,
             f"B, b ~ N(0, 0.3^2); c in {scales}")]
    return [dict(zip(("label", "value", "rule", "passed", "detail"), r)) for r in rows]
