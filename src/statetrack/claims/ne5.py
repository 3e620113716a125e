"""Claim ne5 (NE Fig. 4 and Fig. 7): S5 word problems versus depth, sequence accuracy up to length 500.

NE train Mamba and DeltaNet, each with eigenvalues in [0, 1] or [−1, 1] and 1–5 layers, plus a
one-layer "full matrix simple" baseline, on four variants of the S5 word problem (NE App. E.2):
swaps only, swaps + 3-cycles, 4 tokens per transition, and all of S5; training length 32 (64 for
the 4-token variant, our reading), test length 500, sequence accuracy against the length; Fig. 4 shows
the best of 3 seeds, Fig. 7 every seed. The paper gives plots only, no numbers: each statement reads
the plot's level (1 where a model "solves" a variant, 0 where it fails) with ``PAPER_TOLERANCE``, 0.1
(L_gen: quick 100, paper 500; 2T = twice the training length). Statements (``statements``):

| id                      | the paper's sentence (NE App. E.2, Fig. 4)                 | statistic, rule                            | judged       |
|-------------------------|------------------------------------------------------------|--------------------------------------------|--------------|
| ``swaps-neg-1layer``    | swaps: DeltaNet [−1,1] with even 1 layer solves it         | best seed: seq acc @L_gen ≥ 1 − 0.1        | quick, paper |
| ``swaps-pos``           | swaps: DeltaNet [0,1] (5 layers) generalises only slightly | best seed, each depth: @2T ≤ 0 + 0.1       | quick, paper |
| ``3cycles-neg-5layers`` | swaps + 3-cycles: DeltaNet [−1,1] 5 layers still good      | best seed: seq acc @2T ≥ 1 − 0.1           | paper        |
| ``3cycles-degrade``     | swaps + 3-cycles: every model degrades                     | best seed @L_gen, DeltaNet [−1,1] 1 layer: | paper        |
|                         |                                                            | swaps − 3-cycles ≥ 0.1                     |              |
| ``4tokens-neg-5layers`` | 4 tokens: DeltaNet [−1,1] 5 layers good to about 200       | best seed: seq acc @200 ≥ 1 − 0.1          | paper        |
| ``all-zero``            | all of S5: every model reaches 0 before length 30          | best seed: seq acc @30 ≤ 0 + 0.1           | paper        |
| ``mamba-poor``          | Mamba is poor in every setup, in either range              | best seed: seq acc @2T ≤ 0 + 0.1           | paper        |

A diverged run counts as a failing seed. ``3cycles-degrade`` compares the one setting where a drop can
show: the others are at 0 on swaps already (``swaps-pos``, ``mamba-poor``); a drop within the tolerance
is one we would call no change. The full-matrix baseline's runs are shown, not judged (the paper makes
no statement about our model).

Exact part (``checks``, from ``theory.word_problems``), three statements: ``trackers`` (ours): the
package's bilinear "full" model (state size 32) with hand-set weights tracks every variant against the
task's labels; ``reflections`` (NE Thm 3, Prop 1): the fewest reflections per element are 1 (swaps),
2 (+ 3-cycles) and 4 (all of S5), so one GH factor per token (one DeltaNet layer) fits swaps only and 4
tokens per element leave room for every element; ``swap-eigenvalue`` (NE Prop 1): every swap is a
reflection, eigenvalue −1, which no [0, 1] transition has.

Presets (lengths count input tokens):

| preset | trained                                                                | train                                    | test   | seeds |
|--------|------------------------------------------------------------------------|------------------------------------------|--------|-------|
| smoke  | swaps: DeltaNet ± 1 layer D=8; full H=8                                | 10 steps, length 8                       | 9–16   | 1     |
| quick  | swaps: DeltaNet ± 1 layer D=64, 4 heads, no conv, no MLP (= ne3's      | DeltaNet: lr 2e-3, 500 steps; full: lr   | 33–128;| 3     |
|        | quick runs); full H=32                                                 | 1e-2, 1000 steps; batch 128, length 32   | full to 500 |  |
| paper  | 4 variants × {DeltaNet, Mamba} × {[0,1], [−1,1]} × 1–5 layers, D=128;  | lr 1e-4, batch 512, 312,500 steps        | to 500 | 3     |
|        | full H=32 per variant (252 runs)                                       | (NE App. E.2), length 32 (4 tokens: 64)  |        |       |

``quick`` judges ``swaps-neg-1layer`` and ``swaps-pos`` on one layer (the swaps-only separation) and shows
the baseline: its 9 runs take 3.9 CPU-minutes (the committed records); every other variant and depth is
the ``paper`` preset's (``NOT_RUN_QUICK``).

Used in: notebooks/ne5_s5_word_problems.md, ``statetrack verify``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (MODEL_NAMES, PAPER_TOLERANCE, Cell, Check, Statement, at_least, at_most,
                                      check_choice, check_seeds, decide, exact_checks, expand, with_metric)
from statetrack.config import EvalConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import make_task, task_config

ID = "ne5"
VARIANTS = ("swaps", "swaps_3cycles", "4tokens", "all")
VARIANT_NAMES = {"swaps": "swaps only", "swaps_3cycles": "swaps + 3-cycles", "4tokens": "4 tokens per transition",
                 "all": "all of S5"}
MODELS = ("deltanet", "mamba", "full")
NAMES = {"deltanet": MODEL_NAMES["deltanet"], "mamba": MODEL_NAMES["mamba"], "full": "full matrix"}  # NE's baseline
EIG_RANGES = ("[0,1]", "[-1,1]")
DEPTHS = (1, 2, 3, 4, 5)
HEADLINE = "swaps-neg-1layer"  # the scoreboard's statement
L_GEN = {"smoke": 16, "quick": 100, "paper": 500}  # swaps-neg-1layer's length (quick's test stops at 128)
L_ZERO = 30  # all-zero's length
L_4TOKENS = 200  # 4tokens-neg-5layers' length
NOT_RUN_QUICK = ("the quick grid is the swaps-only panel, DeltaNet with one layer in both ranges (3 seeds each); the "
                 "other variants, depths and the full-matrix baseline are the paper preset's")

_MODEL_FIELDS = {  # preset → model → fields (num_layers and eig_range are added per cell)
    "smoke": {"deltanet": dict(d_model=8, num_heads=2, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=8, d_state=2, expand=1, d_conv=0, mlp_ratio=0),
              "full": dict(variant="full", d_model=8)},
    # DeltaNet as ne3's quick cell (without the MLP; book/recipes.md), so the runs are shared.
    "quick": {"deltanet": dict(d_model=64, num_heads=4, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=64, d_state=16, expand=2, d_conv=4, mlp_ratio=0),
              "full": dict(variant="full", d_model=32)},
    # NE App. E.2: width 128, DeltaNet 4 heads and no short conv, fla's default MLP; Mamba as mambapy.
    "paper": {"deltanet": dict(d_model=128, num_heads=4, d_conv=0, mlp_ratio=4),
              "mamba": dict(d_model=128, d_state=16, expand=2, d_conv=4, dt_rank=8, mlp_ratio=0),
              "full": dict(variant="full", d_model=32)},
}
_SMOKE = TrainConfig(num_steps=10, batch_size=8, lr=2e-3, warmup_steps=2, min_len=8, max_len=8, log_every=1)
# The same TrainConfig and EvalConfig as ne3's quick DeltaNet cell (tests check that ne3's runs are ours).
_QUICK = TrainConfig(num_steps=500, batch_size=128, lr=2e-3, warmup_steps=25, weight_decay=0.01, grad_clip=1.0,
                     min_len=32, max_len=32, eval_every=0)
# NE App. E.2: 100 epochs of 1.6M sequences at batch 512 (fresh sequences instead of a fixed set), as ne3.
_PAPER = TrainConfig(num_steps=312_500, batch_size=512, lr=1e-4, warmup_steps=10_000, weight_decay=0.01,
                     grad_clip=1.0, min_len=32, max_len=32, eval_every=25_000, log_every=100)
_TRAIN = {  # preset → model → training settings
    "smoke": dict.fromkeys(MODELS, _SMOKE),
    "quick": {"deltanet": _QUICK, "mamba": _QUICK, "full": replace(_QUICK, num_steps=1000, lr=1e-2, warmup_steps=50)},
    "paper": dict.fromkeys(MODELS, _PAPER),
}
_EVAL = {  # preset → model → test lengths
    "smoke": dict.fromkeys(MODELS, EvalConfig(min_len=9, max_len=16, num_seqs=16)),
    "quick": {"deltanet": EvalConfig(min_len=33, max_len=128, num_seqs=512),
              "mamba": EvalConfig(min_len=33, max_len=128, num_seqs=512),
              "full": EvalConfig(min_len=33, max_len=500, num_seqs=512)},
    "paper": dict.fromkeys(MODELS, EvalConfig(min_len=33, max_len=500, num_seqs=4096)),
}
_SEEDS = {"smoke": (0,), "quick": (0, 1, 2), "paper": (0, 1, 2)}
_RUNS = {  # preset → (variant, model, eig_range or "", depth) run
    "smoke": [("swaps", "deltanet", e, 1) for e in EIG_RANGES] + [("swaps", "full", "", 1)],
    "quick": [("swaps", "deltanet", e, 1) for e in EIG_RANGES],  # the baseline carries no statement: paper only
    "paper": [(v, m, e, d) for v in VARIANTS for m in ("deltanet", "mamba") for e in EIG_RANGES for d in DEPTHS]
             + [(v, "full", "", 1) for v in VARIANTS],
}
# Exact part: rollouts of the hand-set tracker (sequences, length) per preset.
TRACK = {"smoke": (100, 64), "quick": (1000, 500), "paper": (1000, 2000)}


def task_of(variant: str) -> TaskConfig:
    """The word_problem config of a variant name."""
    if variant == "4tokens":
        return task_config("word_problem", group="S5", tokens_per_element=4)
    return task_config("word_problem", group="S5", elements=variant)


def _train(preset: str, model: str, variant: str) -> TrainConfig:
    train = _TRAIN[preset][model]
    if variant == "4tokens" and preset != "smoke":  # 32 elements, as many as the other variants' length 32
        return replace(train, min_len=2 * train.max_len, max_len=2 * train.max_len)
    return train


def _eval(preset: str, model: str, variant: str) -> EvalConfig:
    ev = _EVAL[preset][model]
    return replace(ev, min_len=_train(preset, model, variant).max_len + 1)


def _model(preset: str, model: str, eig: str, depth: int):
    if model == "full":
        return model_config("bilinear", **_MODEL_FIELDS[preset]["full"])
    return model_config(model, eig_range=eig, num_layers=depth, **_MODEL_FIELDS[preset][model])


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         variants: list[str] | None = None) -> list[RunConfig]:
    """Every run of ne5 at ``preset``: (variant, model, eig_range, depth) × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: the preset's).
        models: a subset of ``MODELS`` (default: all the preset runs).
        variants: a subset of ``VARIANTS`` (default: all the preset runs).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, _SEEDS[preset])
    models = check_choice(ID, "model", models, MODELS)
    variants = check_choice(ID, "variant", variants, VARIANTS)
    cells = [Cell(task_of(v), _model(preset, m, e, d), _train(preset, m, v), _eval(preset, m, v))
             for v, m, e, d in _RUNS[preset] if m in models and v in variants]
    return expand(cells, seeds)


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """A record's cell: variant, model (a ``MODELS`` name), eig_range ("" for the full model), depth."""
    cfg = record["config"]
    task, m = cfg["task"], cfg["model"]
    variant = "4tokens" if task["tokens_per_element"] == 4 else task["elements"]
    model = "full" if m["name"] == "bilinear" else m["name"]
    return {"variant": variant, "model": model, "eig_range": m.get("eig_range", ""), "depth": m["num_layers"]}


def label_of(cell: dict[str, Any]) -> str:
    """A row label: "swaps only: DeltaNet [-1,1], 1 layer"."""
    core = f"{NAMES[cell['model']]} {cell['eig_range']}".strip()
    return f"{VARIANT_NAMES[cell['variant']]}: {core}, {cell['depth']} layer{'' if cell['depth'] == 1 else 's'}"


# ----------------------------------------------------------------------------- derived metrics


def train_len(record: dict[str, Any]) -> int:
    return record["config"]["train"]["max_len"]


def seq_acc_at(record: dict[str, Any], length: int) -> float:
    """Sequence accuracy after ``length`` tokens (NaN for a run without accuracy or not evaluated that far)."""
    if record["status"] != "ok":
        return float("nan")
    bl = record["by_length"]
    return float(dict(zip(bl["length"], bl["seq_acc"])).get(length, float("nan")))


def with_metrics(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """Copies of the records whose summary also holds the statements' metrics: ``seq_acc_gen`` (@L_gen),
    ``seq_acc_2t`` (@2× the training length), ``seq_acc_30`` and ``seq_acc_200``. A record that already carries
    one (a test's synthetic record) keeps it; a trained record never does."""
    at = {"seq_acc_gen": lambda r: L_GEN[preset], "seq_acc_2t": lambda r: 2 * train_len(r),
          "seq_acc_30": lambda r: L_ZERO, "seq_acc_200": lambda r: L_4TOKENS}
    for name, length in at.items():
        records = with_metric(records, name, lambda r, n=name, f=length: r["summary"].get(n, seq_acc_at(r, f(r))))
    return records


def statements() -> list[Statement]:
    """ne5's statements (the module docstring's table) and its exact part."""
    solved = f"NE Fig. 4 shows the best seed at 1 (a plot, no number): 1 − the tolerance {PAPER_TOLERANCE:g}"
    zero = f"NE Fig. 4 shows the best seed at 0 (a plot, no number): 0 + the tolerance {PAPER_TOLERANCE:g}"
    neg = {"model": "deltanet", "eig_range": "[-1,1]"}
    paper_only = dict(presets=("paper",), not_run={"quick": NOT_RUN_QUICK})
    exact = "a training-free construction or count run against ground truth: every one of its checks must hold"

    def trained(id, text, kind, rule, why, where, **kw):
        return Statement(id, text, "NE Fig. 4", "paper text", kind, "best", rule, why, where=where, **kw)

    return [
        trained("swaps-neg-1layer", "with swaps only, DeltaNet [-1,1] with even one layer solves the word problem "
                "far beyond its training length", "possible", at_least(1 - PAPER_TOLERANCE, "seq_acc_gen"), solved,
                {"variant": "swaps", **neg, "depth": 1}),
        trained("swaps-pos", "with swaps only, DeltaNet [0,1], even with 5 layers, generalises only slightly beyond "
                "its training length", "fails", at_most(PAPER_TOLERANCE, "seq_acc_2t"), zero,
                {"variant": "swaps", "model": "deltanet", "eig_range": "[0,1]"}),
        trained("3cycles-neg-5layers", "with swaps and 3-cycles, DeltaNet [-1,1] with 5 layers still generalises well",
                "possible", at_least(1 - PAPER_TOLERANCE, "seq_acc_2t"), solved,
                {"variant": "swaps_3cycles", **neg, "depth": 5}, **paper_only),
        trained("3cycles-degrade", "adding 3-cycles to the swaps degrades every model (here: one-layer DeltaNet "
                "[-1,1], the setting that solves swaps)", "comparison", at_least(PAPER_TOLERANCE, "seq_acc_gen"),
                "the plot gives no number: a drop within the tolerance "
                f"{PAPER_TOLERANCE:g} is one we would call no change", {"variant": "swaps", **neg, "depth": 1},
                against={"variant": "swaps_3cycles", **neg, "depth": 1}, **paper_only),
        trained("4tokens-neg-5layers", "with 4 tokens per transition, DeltaNet [-1,1] with 5 layers is good up to "
                "about length 200 (one of its 3 seeds failed)", "possible",
                at_least(1 - PAPER_TOLERANCE, "seq_acc_200"), solved, {"variant": "4tokens", **neg, "depth": 5},
                **paper_only),
        trained("all-zero", "on all of S5 every model's sequence accuracy reaches 0 before length 30", "fails",
                at_most(PAPER_TOLERANCE, "seq_acc_30"), zero, {"variant": "all", "model": ("deltanet", "mamba")},
                **paper_only),
        trained("mamba-poor", "Mamba is poor in every setup, with either eigenvalue range", "fails",
                at_most(PAPER_TOLERANCE, "seq_acc_2t"), zero,
                {"variant": ("swaps", "swaps_3cycles", "4tokens"), "model": "mamba"}, **paper_only),
        Statement("trackers", "a linear RNN with one full matrix per token (the bilinear model, state size 32) tracks "
                  "every variant exactly", "a hand-set construction", "ours", "exact", "value", at_least(1.0), exact,
                  checks="hand-set full matrix*"),
        Statement("reflections", "a permutation of 5 objects with c cycles needs 5 − c reflections: 1 for a swap, 2 "
                  "for a 3-cycle, up to 4 in S5, so one reflection per token fits swaps only", "NE Thm 3, Prop 1",
                  "paper text", "exact", "value", at_least(1.0), exact, checks="fewest reflections*"),
        Statement("swap-eigenvalue", "a swap is a reflection: its eigenvalue −1 is out of reach of every [0,1] "
                  "transition", "NE Prop 1", "paper text", "exact", "value", at_least(1.0), exact,
                  checks="every swap*"),
    ]


def not_run(records: list[dict[str, Any]], reason: str | None = None) -> list[dict[str, Any]]:
    """The paper's cells that ``records`` do not hold, one row per (variant, model, eig_range) with the
    missing depths joined ("1–5", "2–5"), each with ``reason`` where given."""
    have = {tuple(cell_of(r).values()) for r in records}
    groups: dict[tuple, list[int]] = {}
    for v, m, e, d in _RUNS["paper"]:
        if (v, m, e, d) not in have:
            groups.setdefault((v, m, e), []).append(d)
    return [{"variant": v, "model": m, "eig_range": e, "depth": _depths(ds), **({"reason": reason} if reason else {})}
            for (v, m, e), ds in groups.items()]


def _depths(ds: list[int]) -> int | str:
    if len(ds) == 1:
        return ds[0]
    return f"{ds[0]}–{ds[-1]}" if ds == list(range(ds[0], ds[-1] + 1)) else ", ".join(map(str, ds))


# ----------------------------------------------------------------------------- exact checks


def checks(preset: str) -> list[Check]:
    """The exact part (seconds): hand-set full trackers on every variant, reflections per element, swap spectra."""
    from statetrack.theory import word_problems as wp

    check_preset(preset)
    num, length = TRACK[preset]
    out = []
    for v in VARIANTS:
        cfg = task_of(v)
        res = wp.track(wp.full_matrix_tracker(cfg, d_model=32), cfg, num_seqs=num, length=length)
        out.append(Check(f"hand-set full matrix (H=32) tracks {VARIANT_NAMES[v]}: seq acc @{length}", res.seq_acc,
                         "= 1", res.seq_acc == 1.0, f"{num} random words against the task's labels"))
    most = {}
    for elements in ("swaps", "swaps_3cycles", "all"):
        most[elements] = int(wp.factors_needed(make_task(task_config("word_problem", group="S5",
                                                                     elements=elements))).max())
    out.append(Check("fewest reflections per element: swaps / + 3-cycles / all of S5", most["all"],
                     "= 1 / 2 / 4", (most["swaps"], most["swaps_3cycles"], most["all"]) == (1, 2, 4),
                     f"measured {most['swaps']} / {most['swaps_3cycles']} / {most['all']}: one DeltaNet layer "
                     "applies 1 per token; 4 tokens per element leave room for 4"))
    swaps = make_task(task_config("word_problem", group="S5", elements="swaps"))
    low = float(wp.lowest_eigenvalue(swaps)[1:].max())
    out.append(Check("every swap has the eigenvalue −1 (largest lowest eigenvalue over the 10 swaps)", low, "= −1",
                     abs(low + 1) < 1e-12, "a DeltaNet [0,1] transition has eigenvalues in [0, 1] only"))
    return out


# ----------------------------------------------------------------------------- verdict


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """ne5's statements judged on the records of one preset's grid and the exact checks (computed when None)."""
    exact = exact_checks(__name__, preset, checks)
    return decide(ID, preset, with_metrics(records, preset), statements(), cell_of=cell_of, label_of=label_of,
                  checks=exact, not_run=not_run(records, NOT_RUN_QUICK if preset == "quick" else None))


__all__ = ["DEPTHS", "HEADLINE", "ID", "MODELS", "NOT_RUN_QUICK", "VARIANTS", "cell_of", "checks", "grid", "label_of",
           "not_run", "seq_acc_at", "statements", "task_of", "verdict", "with_metrics"]
