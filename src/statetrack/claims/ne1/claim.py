"""Claim ne1 (NE Thm 1, Fig 1, Table 3 parity column): parity needs a negative eigenvalue.

Trained: Mamba and DeltaNet with transition eigenvalues in [0, 1] or [-1, 1] on parity, tested at lengths
never seen, judged against NE Table 3 (best of 3 seeds) and Table 5 (median of 3) with ``PAPER_TOLERANCE``.
Thm 1 is an impossibility in the limit of long sequences and bounds nothing at lengths 40–256, so the [0,1]
statements are the paper's experiment (kind ``does not learn``), not the theorem; each is judged beside its
positive control, the same model's [-1,1] arm under the same recipe. No exact part.

Used in: notebooks/ne1_parity_needs_negative_eigenvalues.md, ``statetrack verify``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from statetrack.verdicts.claim import Claim, paper_at
from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.verdicts.claim import paper_lookup
from statetrack.verdicts.pilots import DELTANET_NEG, RECIPE, Pilot, RecipePilots
from statetrack.verdicts.recipes import NE_CHOMSKY_TRAIN, NE_PAPER_LRS, SMOKE_TRAIN, Cell, check_choice, expand, sweep
from statetrack.verdicts.statements import Statement, from_paper
from statetrack.config import EvalConfig, RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config

ID = "ne1"
MODELS = ("mamba", "deltanet")
EIG_RANGES = ("[0,1]", "[-1,1]")
NAMES = {m: MODEL_NAMES[m] for m in MODELS}

_MODEL_FIELDS = {
    "smoke": {"mamba": dict(d_model=8, d_state=2, expand=1, d_conv=0, mlp_ratio=1),
              "deltanet": dict(d_model=8, num_heads=2, d_conv=0, mlp_ratio=1)},
    "quick": {"mamba": dict(d_model=32, d_state=8, expand=1, d_conv=0, mlp_ratio=2),
              "deltanet": dict(d_model=32, num_heads=2, d_conv=0, mlp_ratio=2)},
    "paper": {"mamba": dict(d_model=128, num_layers=2, d_state=16, expand=2, d_conv=4, dt_rank=8, mlp_ratio=0),
              "deltanet": dict(d_model=128, num_layers=2, num_heads=4, d_conv=4, mlp_ratio=4)},
}
# quick: lr 1e-2 and no short convolution in either model; the recorded pilots (statetrack.verdicts.pilots, seeds 100 and up)
# test both choices
_QUICK = TrainConfig(num_steps=500, batch_size=64, lr=1e-2, warmup_steps=25, weight_decay=0.01, grad_clip=1.0,
                     min_len=40, max_len=40, eval_every=100)
# NE's code counts the answer token in a length: its train lengths 3–40 and test lengths 40–256 are 2–39 and 39–255 here
_TRAIN = {  # preset → model → training settings
    "smoke": dict.fromkeys(MODELS, replace(SMOKE_TRAIN, min_len=8, max_len=8)),
    "quick": {"mamba": _QUICK, "deltanet": replace(_QUICK, num_steps=1000, warmup_steps=50)},
    "paper": dict.fromkeys(MODELS, NE_CHOMSKY_TRAIN),
}
_EVAL = {"smoke": EvalConfig(min_len=8, max_len=24, stride=4, num_seqs=16),
         "quick": EvalConfig(min_len=40, max_len=256, num_seqs=512),
         "paper": EvalConfig(min_len=39, max_len=255, num_seqs=8192)}
_SUPERVISION = {"smoke": "every", "quick": "every", "paper": "final"}


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         lrs: list[float] | None = None) -> list[RunConfig]:
    """Every run of ne1 at ``preset``: model × eig_range × learning rate × seed (paper: the NE rate grid)."""
    seeds, lrs = sweep(preset, seeds, lrs, paper_lrs=NE_PAPER_LRS)
    models = check_choice(ID, "model", models, MODELS)
    task = task_config("parity", supervision=_SUPERVISION[preset])
    cells = [Cell(task, model_config(m, eig_range=eig, **_MODEL_FIELDS[preset][m]), _TRAIN[preset][m], _EVAL[preset])
             for m in models for eig in EIG_RANGES]
    return expand(cells, seeds, lrs)


def paper_rows() -> dict[tuple[str, str], dict[str, Any]]:
    """NE Table 3 (best of 3) and Table 5 (median ± MAD), parity column, keyed by (model, eig_range)."""
    def key(row):
        name = row["model"].lower()
        return (name, row["variant"]) if row["task"] == "parity" and name in MODELS else None

    return paper_lookup({"ne_table3": "best", "ne_table5": "median"}, key)


def statements() -> list[Statement]:
    """NE Table 3 (best of 3 seeds) and Table 5 (median of 3) for each model in each range."""
    paper, out = paper_rows(), []
    for m in MODELS:
        name = NAMES[m]
        for eig, kind in (("[-1,1]", "learns"), ("[0,1]", "does not learn")):
            row, side = paper[(m, eig)], "neg" if eig == "[-1,1]" else "pos"
            where = {"model": name, "eig_range": eig}
            text = f"{name} {eig} {kind} parity beyond its training lengths"
            # Thm 1 does not stop a [0,1] model fitting lengths ≤ 40: the [-1,1] arm, one change away, is its control
            control = {"control": {"model": name, "eig_range": "[-1,1]"}} if side == "pos" else {}
            out += [from_paper(f"{m}-{side}-{stat}", text, f"NE Table {t}", kind, stat, row[f"paper_{stat}"], where,
                               reads=(f"ne-t{t}-{m}-{side}-parity",), **control)
                    for stat, t in (("best", 3), ("median", 5))]
    return out


def cell_of(r: dict[str, Any]) -> dict[str, Any]:
    m = r["config"]["model"]
    return {"model": NAMES.get(m["name"], m["name"]), "eig_range": m["eig_range"]}


def paper_key(cell: dict[str, Any]) -> tuple[str, str]:
    """A cell's key in ``paper_rows``."""
    return cell["model"].lower(), cell["eig_range"]


_MAMBA_NEG = {"model.name": "mamba", "model.eig_range": "[-1,1]"}
_NEG = {"model.eig_range": "[-1,1]"}
#: The quick recipe's recorded pilots (``verdicts.pilots``): judged on ``ood_normalized``.
RECIPE_PILOTS = RecipePilots("ood_normalized", False, (
    Pilot(RECIPE, "the recipe on the [-1,1] cells", _NEG),
    Pilot("lr 3e-3", "the prototype's learning rate", _MAMBA_NEG, {"train.lr": 3e-3}),
    Pilot("with convolution", "DeltaNet with the paper's short convolution (the earlier recipe)", DELTANET_NEG,
          {"model.d_conv": 4}),
    Pilot("label at the end only", "the NE code's final-answer label", _MAMBA_NEG, {"task.supervision": "final"})))


CLAIM = Claim(ID, grid, statements, cell_of, headline="mamba-neg-best",
              paper_of=paper_at(paper_rows, key=paper_key), recipe_pilots=RECIPE_PILOTS,
              title="Parity needs a negative eigenvalue: [0,1] LRNNs fail, [-1,1] succeed",
              short="Parity needs a negative eigenvalue",
              paper="NE", source="Thm 1, Fig 1", notebook="ne1_parity_needs_negative_eigenvalues")
