"""BL Prop. 1 checked on random machines: W[:, :, σ] = T_σ, h_0 = e_{q0} tracks every one, with and without norm.

The exact part of claim bl1, built from ``fsm_simulation``: ``exact_part`` runs the construction on blocks of random
machines (5–50 states, 2–10 letters) and measures how often rescaling h_0 → c·h_0 (or normalizing) changes a
prediction of the pure and of the additive model; ``check_rows`` turns that into bl1's ``Check`` rows.

Used in: bl1 (claims/bl1.py, notebooks/bl1_bilinear_simulates_any_fsm.md), tests/test_claims_bl1.py.
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.check import Check
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


def check_rows(part: dict[str, Any], scales: list[float]) -> list[Check]:
    """T_σ e_q = e_{δ(q,σ)}: accuracy 1 and one-hot states; argmax(c·h) = argmax(h) without additive terms only."""
    tr = part["tracking"]
    sizes = f"{len(tr)} machines, {sum(t.num_seqs for t in tr)} words, lengths {sorted({t.length for t in tr})}"
    acc = {mode: min(t.acc[mode] for t in tr) for mode in ("every_step", "none")}
    one_hot = all(all(t.one_hot.values()) for t in tr)
    identical = all(t.identical for t in tr)
    pure, additive = max(part["pure_changes"]), max(part["additive_changes"])
    return [Check(label="construction: acc (normalized)", value=acc["every_step"], rule="= 1",
                   passed=acc["every_step"] == 1.0, detail=sizes),
             Check(label="construction: acc (no norm)", value=acc["none"], rule="= 1", passed=acc["none"] == 1.0,
                   detail=sizes),
             Check(label="construction: states exactly one-hot", value=float(one_hot), rule="= 1", passed=one_hot,
                   detail="every state equals e_q of the label"),
             Check(label="scale: same predictions, norm vs none", value=float(identical), rule="= 1", passed=identical,
                   detail=sizes),
             Check(label="scale: pure h0 scaling changes (max)", value=pure, rule="= 0", passed=pure == 0.0,
                   detail=f"fraction of predictions changed by h0 -> c h0, c in {scales}"),
             Check(label="additive: h0 scaling changes (max)", value=additive, rule="> 0", passed=additive > 0.0,
                   detail=f"B, b ~ N(0, 0.3^2); c in {scales}")]
