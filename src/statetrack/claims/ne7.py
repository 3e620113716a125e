"""Claim ne7 (NE §5.3, Table 4, Figs. 5, 9 and 10): language modelling with [0,1] versus [-1,1], in miniature.

NE train DeltaNet (340M, 1.3B) and Mamba (370M) language models on 100B tokens of FineWeb in both
eigenvalue ranges with identical hyperparameters (NE §5.3, App. E.3) and find: training is as stable with
[-1,1]; validation perplexity is about the same (Table 4: Wiki ppl 24.68 vs 24.54 for DeltaNet 340M,
24.84 vs 25.02 for Mamba 370M); on code and math DeltaNet [-1,1] has lower perplexity as the context
grows past the training context (Figs. 5 and 10), while Mamba [-1,1] is worse there. Their scale is
out of reach here; the *direction* is not. We train byte-level models on two corpora every Python
installation has (``tasks.byte_lm``: the standard library's code and its reference documentation)
and turn the direction into rules, judged per preset:

| id | statement (NE §5.3)                                | rule                                                                        |
|----|----------------------------------------------------|-----------------------------------------------------------------------------|
| R1 | training is stable in both ranges                  | every DeltaNet and Mamba run: no divergence, and its smoothed training loss |
|    |                                                    | never rises more than ``LOSS_RISE_MAX`` nats above its running minimum      |
| S  | [-1,1] trains as well as [0,1]                     | per corpus and model: median final training loss of [-1,1] ≤ that of [0,1] |
|    |                                                    | × (1 + ``FINAL_MARGIN``) (comparison)                                       |
| P  | validation perplexity about equal                  | per corpus and model: median validation ppl of [-1,1] within ``PPL_TOL`` of |
|    |                                                    | [0,1]'s, either way (comparison)                                            |
| E  | on code, DeltaNet [-1,1] extrapolates at least as  | code corpus, DeltaNet: median test ppl beyond the training context of       |
|    | well beyond the training context                   | [-1,1] ≤ that of [0,1] × (1 + ``EXTRAP_TOL``) (comparison)                  |

Mamba's extrapolation is shown, not judged (the paper finds Mamba [-1,1] *worse* there), and so is
the Transformer, a reference with rotary positions. "Final training loss" is the mean of the last
tenth of the logged losses; "smoothed" is a moving mean over ``SMOOTH`` logged losses.

Presets (byte-level, K = 257; every pair differs only in ``eig_range``; embeddings untied, as in
every model of the package):

| preset | models (2 layers at quick)                           | train                                      | test        | seeds         |
|--------|------------------------------------------------------|--------------------------------------------|-------------|---------------|
| smoke  | D=8, 1 layer                                         | 5 steps × 2 windows of 16                  | to 32       | 1             |
| quick  | D=128, 2 layers, MLP 2×; DeltaNet 4 heads, conv 4;   | lr 3e-3, batch 8 windows of 256 bytes,     | to 1024     | code 2, docs 1|
|        | Mamba N=8, expand 1, conv 4; Transformer 4 heads,    | 300 steps (``QUICK_STEPS``)                |             | (Transformer 1)|
|        | rotary                                               |                                            |             |               |
| paper  | D=512, 8 layers, MLP 4×; DeltaNet 8 heads; Mamba     | lr 1e-3, batch 16 × 2048, 3,000 steps      | to 8192     | 3             |
|        | N=16, expand 2; Transformer 8 heads, rotary          | (≈ 98M tokens; docs 300 steps)             |             |               |

Used in: notebooks/ne7_language_modelling.md, ``statetrack verify``.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import Cell, Check, at_most, check_choice, check_seeds, expand, judge, paper_lookup
from statetrack.config import ConfigError, EvalConfig, RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config
from statetrack.tasks.byte_lm import BUILTIN_CORPORA

ID = "ne7"
CORPORA = BUILTIN_CORPORA  # "stdlib-code", "stdlib-docs"
CODE = "stdlib-code"
CORPUS_NAMES = {"stdlib-code": "code", "stdlib-docs": "docs"}
MODELS = ("deltanet", "mamba", "transformer")
FAMILIES = ("deltanet", "mamba")  # the models with an eigenvalue range
NAMES = {"deltanet": "DeltaNet", "mamba": "Mamba", "transformer": "Transformer"}
EIG_RANGES = ("[0,1]", "[-1,1]")
HEADLINE = "P code: DeltaNet validation ppl, [-1,1] / [0,1] − 1"  # the scoreboard's row
LOSS_RISE_MAX = 0.5  # nats: a rise of the smoothed training loss above its running minimum
FINAL_MARGIN = 0.05  # S: relative
PPL_TOL = 0.05  # P: relative, either way
EXTRAP_TOL = 0.02  # E: relative
SMOOTH = 5  # logged losses per moving mean
QUICK_STEPS = 300

_MODEL_FIELDS = {  # preset → model → fields (eig_range is added per cell)
    "smoke": {"deltanet": dict(d_model=8, num_heads=2, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=8, d_state=2, expand=1, d_conv=0, mlp_ratio=0),
              "transformer": dict(d_model=8, num_heads=2, mlp_ratio=0, positions="rotary")},
    "quick": {"deltanet": dict(d_model=128, num_layers=2, num_heads=4, d_conv=4, mlp_ratio=2),
              "mamba": dict(d_model=128, num_layers=2, d_state=8, expand=1, d_conv=4, mlp_ratio=2),
              "transformer": dict(d_model=128, num_layers=2, num_heads=4, mlp_ratio=2, positions="rotary")},
    "paper": {"deltanet": dict(d_model=512, num_layers=8, num_heads=8, d_conv=4, mlp_ratio=4),
              "mamba": dict(d_model=512, num_layers=8, d_state=16, expand=2, d_conv=4, mlp_ratio=4),
              "transformer": dict(d_model=512, num_layers=8, num_heads=8, mlp_ratio=4, positions="rotary")},
}
_TRAIN = {
    "smoke": TrainConfig(num_steps=5, batch_size=2, lr=3e-3, warmup_steps=1, min_len=16, max_len=16, log_every=1),
    "quick": TrainConfig(num_steps=QUICK_STEPS, batch_size=8, lr=3e-3, warmup_steps=QUICK_STEPS // 10,
                         weight_decay=0.01, grad_clip=1.0, min_len=256, max_len=256, log_every=10),
    "paper": TrainConfig(num_steps=3000, batch_size=16, lr=1e-3, min_lr_ratio=0.1, warmup_steps=250,
                         weight_decay=0.01, grad_clip=1.0, min_len=2048, max_len=2048, log_every=10),
}
_EVAL = {  # stride = the width of a position bin of the recorded curve
    "smoke": EvalConfig(min_len=17, max_len=32, stride=8, num_seqs=4, batch_size=4),
    "quick": EvalConfig(min_len=257, max_len=1024, stride=64, num_seqs=32, batch_size=32),
    "paper": EvalConfig(min_len=2049, max_len=8192, stride=256, num_seqs=64, batch_size=8),
}
_SEEDS = {  # preset → corpus → (seeds of the eigenvalue pairs, seeds of the Transformer)
    "smoke": {c: ((0,), (0,)) for c in CORPORA},
    "quick": {"stdlib-code": ((0, 1), (0,)), "stdlib-docs": ((0,), (0,))},
    "paper": {c: ((0, 1, 2), (0, 1, 2)) for c in CORPORA},
}
_DOCS_STEPS = {"paper": 300}  # the docs corpus holds ~0.4M training bytes: 3,000 steps would be ~220 epochs


def _train(preset: str, corpus: str) -> TrainConfig:
    from dataclasses import replace

    train = _TRAIN[preset]
    if corpus == "stdlib-docs" and preset in _DOCS_STEPS:
        return replace(train, num_steps=_DOCS_STEPS[preset], warmup_steps=min(train.warmup_steps,
                                                                            _DOCS_STEPS[preset] // 10))
    return train


def check_corpora(corpora: list[str] | None) -> list[str]:
    """``CORPORA`` when None; else each item must be a built-in corpus or an existing directory."""
    if corpora is None:
        return list(CORPORA)
    if isinstance(corpora, (str, bytes)) or not isinstance(corpora, (list, tuple)) or not corpora:
        raise ConfigError(f"bad corpora {corpora!r} for {ID}: expected a non-empty list of {', '.join(CORPORA)} "
                          "or directory paths")
    for c in corpora:
        if not isinstance(c, str):
            raise ConfigError(f"bad corpus {c!r} for {ID}: expected {', '.join(CORPORA)} or a directory path")
        task_config("byte_lm", corpus=c)  # raises, naming the value, when it is neither
    return list(corpora)


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         corpora: list[str] | None = None) -> list[RunConfig]:
    """Every run of ne7 at ``preset``: corpus × model × eig_range × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds for every cell (default: the preset's, per corpus; the Transformer may run fewer).
        models: a subset of ``MODELS`` (default: all three).
        corpora: built-in corpus names or directories of your own files (default: both built-ins);
            a directory gets the settings of the code corpus.
    """
    check_preset(preset)
    models = check_choice(ID, "model", models, MODELS)
    corpora = check_corpora(corpora)
    out: list[RunConfig] = []
    for corpus in corpora:
        pair_seeds, ref_seeds = _SEEDS[preset].get(corpus, _SEEDS[preset][CODE])
        task = task_config("byte_lm", corpus=corpus)
        for m in models:
            eigs = EIG_RANGES if m in FAMILIES else (None,)
            cells = [Cell(task, model_config(m, **({"eig_range": e} if e else {}), **_MODEL_FIELDS[preset][m]),
                          _train(preset, corpus), _EVAL[preset]) for e in eigs]
            out += expand(cells, check_seeds(seeds, pair_seeds if m in FAMILIES else ref_seeds))
    return out


def corpus_name(corpus: str) -> str:
    return CORPUS_NAMES.get(corpus, corpus)


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """A record's cell: corpus ("code", "docs" or a path), model (a ``MODELS`` name), eig_range ("" if none)."""
    cfg = record["config"]
    return {"corpus": corpus_name(cfg["task"]["corpus"]), "model": cfg["model"]["name"],
            "eig_range": cfg["model"].get("eig_range", "")}


def label_of(cell: dict[str, Any]) -> str:
    """A row label: "code: DeltaNet [-1,1]"."""
    return f"{cell['corpus']}: {NAMES[cell['model']]} {cell['eig_range']}".strip()


# ----------------------------------------------------------------------------- derived metrics


def smoothed(losses: list[float], window: int = SMOOTH) -> list[float]:
    """Trailing moving mean over ``window`` values (fewer at the start)."""
    return [sum(losses[max(0, i - window + 1):i + 1]) / (i + 1 - max(0, i - window + 1)) for i in range(len(losses))]


def loss_rise(losses: list[float], window: int = SMOOTH) -> float:
    """The largest rise of the smoothed loss above its running minimum (nats; 0 for a loss that never rises)."""
    best, rise = float("inf"), 0.0
    for v in smoothed(losses, window):
        best = min(best, v)
        rise = max(rise, v - best)
    return rise


def final_train_loss(losses: list[float]) -> float:
    """The mean of the last tenth (at least one) of the logged training losses."""
    k = max(1, len(losses) // 10)
    return sum(losses[-k:]) / k


def with_metrics(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of the records whose summary also holds ``loss_rise`` and ``final_train_loss`` (NaN if not ok)."""
    out = []
    for r in records:
        losses = r.get("history", {}).get("loss") or []
        ok = r["status"] == "ok" and losses
        extra = {"loss_rise": loss_rise(losses) if ok else float("nan"),
                 "final_train_loss": final_train_loss(losses) if ok else float("nan")}
        out.append({**r, "summary": {**r.get("summary", {}), **extra}})
    return out


def rule_of(cell: dict[str, Any]):
    """R1 for DeltaNet and Mamba; the Transformer is shown, not judged."""
    return at_most(LOSS_RISE_MAX, "loss_rise") if cell["model"] in FAMILIES else None


# ----------------------------------------------------------------------------- comparisons


def _median(records: list[dict[str, Any]], pick: dict[str, Any], metric: str) -> float | None:
    """The median of ``metric`` over the runs of one cell; NaN if any of them has no number, None if none ran."""
    runs = [r for r in records if all(cell_of(r)[k] == v for k, v in pick.items())]
    if not runs:
        return None
    vals = [float(r["summary"][metric]) if r["status"] == "ok" else float("nan") for r in runs]
    return float("nan") if any(v != v for v in vals) else statistics.median(vals)


def pair_ratio(records: list[dict[str, Any]], corpus: str, model: str, metric: str) -> float | None:
    """Median ``metric`` of [-1,1] over that of [0,1], minus 1 (None when a range has no run)."""
    neg = _median(records, {"corpus": corpus, "model": model, "eig_range": "[-1,1]"}, metric)
    pos = _median(records, {"corpus": corpus, "model": model, "eig_range": "[0,1]"}, metric)
    if neg is None or pos is None:
        return None
    return neg / pos - 1 if pos == pos and neg == neg else float("nan")


def _passes(value: float, ok) -> bool:
    return value == value and bool(ok(value))


def comparisons(records: list[dict[str, Any]]) -> tuple[list[Check], list[dict[str, Any]]]:
    """S and P per (corpus, model) pair in ``records``, E on the code corpus for DeltaNet; E comes back as a
    not-run row when the records lack it."""
    records = with_metrics(records)
    checks: list[Check] = []
    corpora = sorted({cell_of(r)["corpus"] for r in records}, key=lambda c: (c != "code", c))
    for corpus in corpora:
        for model in FAMILIES:
            s = pair_ratio(records, corpus, model, "final_train_loss")
            if s is not None:
                checks.append(Check(f"S {corpus}: {NAMES[model]} final training loss, [-1,1] / [0,1] − 1", s,
                                    f"≤ {FINAL_MARGIN:g}", _passes(s, lambda v: v <= FINAL_MARGIN),
                                    "medians over seeds", part="comparison"))
            p = pair_ratio(records, corpus, model, "val_ppl")
            if p is not None:
                checks.append(Check(f"P {corpus}: {NAMES[model]} validation ppl, [-1,1] / [0,1] − 1", p,
                                    f"within ±{PPL_TOL:g}", _passes(p, lambda v: abs(v) <= PPL_TOL),
                                    "medians over seeds", part="comparison"))
    e_label = "E code: DeltaNet test ppl beyond the training context, [-1,1] / [0,1] − 1"
    e = pair_ratio(records, "code", "deltanet", "test_ppl_beyond")
    missing = []
    if e is None:
        missing.append({"corpus": "code", "model": "deltanet", "eig_range": "", "check": e_label})
    else:
        checks.append(Check(e_label, e, f"≤ {EXTRAP_TOL:g}", _passes(e, lambda v: v <= EXTRAP_TOL),
                            "medians over seeds", part="comparison"))
    return checks, missing


# ----------------------------------------------------------------------------- paper and verdict


def paper_rows() -> dict[tuple[str, str], dict[str, Any]]:
    """NE Table 4, the authors' FineWeb rows at 340M/370M (Wiki and LAMBADA ppl), keyed by (model, eig_range)."""
    def key(row):
        if row["setting"] not in ("340M, FW-100B", "370M, FW-100B") or not row["variant"]:
            return None
        return (row["model"].lower(), row["variant"], row["metric"]) if row["metric"] in ("wiki_ppl",
                                                                                            "lambada_ppl") else None

    out: dict[tuple[str, str], dict[str, Any]] = {}
    for (model, eig, metric), entry in paper_lookup({"ne_table4": "value"}, key).items():
        row = out.setdefault((model, eig), {"paper_source": []})
        row[f"paper_{metric}"] = entry["paper_value"]
        row["paper_source"] += entry["paper_source"]
        row["paper_provenance"] = entry["paper_provenance"]
    return out


def verdict(records: list[dict[str, Any]], preset: str) -> Verdict:
    """R1 per run and S, P, E as comparisons (see the module docstring)."""
    paper = paper_rows()
    comp, missing = comparisons(records)
    return judge(ID, preset, with_metrics(records), cell_of=cell_of, rule_of=rule_of,
                 label_of=lambda c: c.get("check") or label_of(c),
                 paper_of=lambda c: paper.get((c["model"], c["eig_range"]), {}),
                 checks=comp, not_run=missing,
                 legend=f"(R1 loss rise <= {LOSS_RISE_MAX:g} nats; S final loss +{FINAL_MARGIN:.0%}; "
                        f"P val ppl ±{PPL_TOL:.0%}; E code extrapolation +{EXTRAP_TOL:.0%})")


def tokens_per_second(record: dict[str, Any]) -> float:
    """Training tokens per second of a record: steps × batch × context over its training time."""
    t = record["config"]["train"]
    secs = record["provenance"].get("train_time_s") or float("nan")
    return t["num_steps"] * t["batch_size"] * t["max_len"] / secs if secs == secs and secs > 0 else float("nan")


def bits_per_byte(loss_nats: float) -> float:
    """Cross-entropy in nats per byte → bits per byte."""
    return loss_nats / math.log(2)


__all__ = ["CORPORA", "HEADLINE", "ID", "MODELS", "bits_per_byte", "cell_of", "comparisons", "final_train_loss", "grid",
           "label_of", "loss_rise", "pair_ratio", "paper_rows", "rule_of", "smoothed", "tokens_per_second", "verdict",
           "with_metrics"]
