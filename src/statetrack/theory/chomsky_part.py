"""NE Table 3 without brackets, after NE Thms 1 and 2: the automaton runs exactly in a bilinear RNN, '× 4' needs −1, '+ 1' non-real λ.

ne4's exact part, run through ``theory.modular_arithmetic`` (which says why each holds), and the majority floor
of its trained columns (what always giving the most common answer scores on a test set).

Used in: ne4 (claims/ne4.py, notebooks/ne4_chomsky_tasks.md).
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.check import Check
from statetrack.config import EvalConfig, TaskConfig
from statetrack.tasks import make_task
from statetrack.theory import modular_arithmetic as ma
from statetrack.theory.rotations import eventual_period


def exact_part(m: int, num: int, lo: int, hi: int, words: dict[str, tuple[int, str, int]]) -> dict[str, Any]:
    """``tracking`` (``ma.Tracking`` of ``num`` expressions, lengths ``lo``–``hi``, seed 0) and, per word of ``words``
    (name → (first digit, op, repeated digit)), its answers for k = 0..11 repetitions, their period, its spectrum on
    the D states, the distance to −1 and the largest |Im λ|."""
    mach = ma.machine(m)
    out = {}
    for name, (first, op, digit) in words.items():
        answers = ma.word_answers(m, first, op, digit, 11)
        p = int(eventual_period(torch.tensor(answers), max_period=len(answers) - 1, tail=None)[1])
        ev = ma.spectrum(ma.word_matrix(mach, op, digit))  # (m²,) complex128
        out[name] = {"answers": answers, "period": p if p > 0 else len(answers), "spectrum": ev,
                     "dist_to_minus_one": float((ev + 1).abs().min()), "max_imag": float(ev.imag.abs().max())}
    return {"tracking": ma.track(m, num, lo, hi, seed=0), "words": out}


def check_rows(part: dict[str, Any], m: int) -> list[Check]:
    """A ``Check`` of every exact fact in ``exact_part``'s output ('× 4' and '+ 1')."""
    tr, neg, count = part["tracking"], part["words"]["× 4"], part["words"]["+ 1"]
    sizes = f"{tr.num_seqs} random expressions, lengths {tr.lengths[0]}–{tr.lengths[1]}, {tr.num_states} states"
    labels = "task labels for k = 0..11"
    return [Check(label="automaton through bilinear model: acc", value=tr.acc, rule="= 1", passed=tr.acc == 1.0,
                  detail=sizes),
            Check(label="automaton: states exactly one-hot", value=float(tr.one_hot), rule="= 1", passed=tr.one_hot,
                  detail=sizes),
            Check(label="'3 (× 4)^k =': answer period", value=float(neg["period"]), rule="= 2",
                  passed=neg["period"] == 2, detail=labels),
            Check(label="'× 4' word matrix: distance of spectrum to −1", value=neg["dist_to_minus_one"], rule="= 0",
                  passed=neg["dist_to_minus_one"] < 1e-9, detail="fp64 eigenvalues on the 25 D(total, term) states"),
            Check(label="'1 (+ 1)^k =': answer period", value=float(count["period"]), rule="= 5",
                  passed=count["period"] == m, detail=labels),
            Check(label="'+ 1' word matrix: largest |Im λ|", value=count["max_imag"], rule="> 0",
                  passed=count["max_imag"] > 1e-6, detail="fp64; the 5th roots of unity")]


def majority_score(task_cfg: TaskConfig, cfg: EvalConfig, seed: int = 0) -> dict[str, float]:
    """The share of the most common final answer over ``cfg``'s test lengths (``num_seqs`` each, drawn as the test set
    is) and its normalized score (share − chance) / (1 − chance): the floor a claim of learning must clear."""
    t = make_task(task_cfg)
    gen = torch.Generator().manual_seed(seed)
    answers = torch.cat([t.sample(gen, cfg.num_seqs, n).targets[:, -1]
                         for n in range(cfg.min_len, cfg.max_len + 1, cfg.stride)])  # (lengths × num_seqs,)
    counts = torch.bincount(answers, minlength=t.num_classes)  # (K,)
    share = float(counts.max()) / len(answers)
    return {"answer": int(counts.argmax()), "share": share, "normalized": (share - t.chance) / (1 - t.chance),
            "samples": len(answers)}
