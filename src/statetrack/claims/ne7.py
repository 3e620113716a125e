"""Claim ne7 (NE §5.3, Table 4, Figs. 5, 9 and 10): language modelling with [0,1] versus [-1,1], in miniature.

NE train DeltaNet (340M, 1.3B) and Mamba (370M) language models on 100B tokens of FineWeb in both
eigenvalue ranges with identical hyperparameters (NE §5.3, App. E.3) and find: training is as stable with
[-1,1]; validation perplexity is about the same (Table 4: Wiki ppl 24.68 vs 24.54 for DeltaNet 340M,
24.84 vs 25.02 for Mamba 370M); on code and math DeltaNet [-1,1] has lower perplexity as the context
grows past the training context (Figs. 5 and 10), while Mamba [-1,1] is worse there. Their scale is
out of reach here; the *direction* is not. We train byte-level models on two corpora every Python
installation has (``tasks.byte_lm``: the standard library's code and its reference documentation).

Statements (``statements``; every one is NE's, read at our scale; perplexities are compared as differences
of mean losses, i.e. log ratios of perplexities, from the records' ``val_loss`` and ``test_loss_beyond``):

- ``deltanet-stable``, ``mamba-stable`` (possible, every seed; NE §5.3 and App. E.3: training was stable in
  both ranges): no run diverges and its smoothed training loss never rises more than ``LOSS_RISE_MAX`` above
  its running minimum: a tenth (``PAPER_TOLERANCE``) of the loss of a uniform guess over the 257 classes,
  ln 257, i.e. a tenth of the way from chance to perfect on the loss scale.
- ``<model>-<corpus>-ppl`` (comparison of medians over seeds; NE Table 4: about the same perplexity):
  ln(val ppl of [-1,1] / val ppl of [0,1]) at most the largest gap between the ranges in Table 4's Wiki ppl
  (FineWeb rows; Mamba 370M, 25.02 vs 24.84, ln ratio 0.0072), a gap NE itself calls comparable. One-sided:
  the paper's point is that the wider range costs nothing.
- ``deltanet-code-beyond`` (comparison of medians; NE Fig. 5, plots only: DeltaNet [-1,1] has lower
  perplexity on code beyond the training context): the log ratio of test ppl beyond the training context
  ≤ 0, the direction the paper reports (no number to take a tolerance from).
- ``mamba-code-beyond`` (the same; NE §5.3: Mamba [-1,1] is worse there): log ratio ≥ 0.

At quick only DeltaNet on code is judged (three seeds per range); the rest is "not run at this preset" with
the measured cost. The Transformer (rotary positions) is a reference, shown and never judged. "Smoothed" is a
moving mean over ``SMOOTH`` logged losses.

Presets (byte-level, K = 257; every pair differs only in ``eig_range``; embeddings untied, as in
every model of the package):

| preset | models (2 layers at quick)                           | train                                      | test        | cells and seeds            |
|--------|------------------------------------------------------|--------------------------------------------|-------------|----------------------------|
| smoke  | D=8, 1 layer                                         | 5 steps × 2 windows of 16                  | to 32       | all, 1 seed                |
| quick  | D=128, 2 layers, MLP 2×; DeltaNet 4 heads, conv 4;   | lr 3e-3, batch 8 windows of 256 bytes,     | to 1024     | code only: DeltaNet pair × |
|        | Mamba N=8, expand 1, conv 4; Transformer 4 heads,    | 300 steps (``QUICK_STEPS``)                |             | 3 seeds, Transformer × 1   |
|        | rotary                                               |                                            |             |                            |
| paper  | D=512, 8 layers, MLP 4×; DeltaNet 8 heads; Mamba     | lr 1e-3, batch 16 × 2048, 3,000 steps      | to 8192     | all, 3 seeds               |
|        | N=16, expand 2; Transformer 8 heads, rotary          | (≈ 98M tokens; docs 300 steps)             |             |                            |

Asked for explicitly (``models=``, ``corpora=``), any model and corpus runs at quick with the quick settings
(pairs on three seeds, the Transformer on one).

Used in: notebooks/ne7_language_modelling.md, ``statetrack verify``.
"""

from __future__ import annotations

import math
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (MODEL_NAMES, PAPER_TOLERANCE, Cell, Statement, at_least, at_most,
                                      check_choice, check_seeds, decide, expand, paper_lookup, with_metric)
from statetrack.config import ConfigError, EvalConfig, RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config
from statetrack.tasks.byte_lm import BUILTIN_CORPORA, EOD

ID = "ne7"
CORPORA = BUILTIN_CORPORA  # "stdlib-code", "stdlib-docs"
CODE = "stdlib-code"
CORPUS_NAMES = {"stdlib-code": "code", "stdlib-docs": "docs"}
MODELS = ("deltanet", "mamba", "transformer")
FAMILIES = ("deltanet", "mamba")  # the models with an eigenvalue range
NAMES = {m: MODEL_NAMES[m] for m in MODELS}
EIG_RANGES = ("[0,1]", "[-1,1]")
HEADLINE = "deltanet-code-beyond"  # the scoreboard's statement
LOSS_RISE_MAX = PAPER_TOLERANCE * math.log(EOD + 1)  # nats: a tenth of a uniform guess's loss over 257 classes
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
_SEEDS = {"smoke": ((0,), (0,)), "quick": ((0, 1, 2), (0,)), "paper": ((0, 1, 2), (0, 1, 2))}  # (pairs, Transformer)
_DEFAULT = {"smoke": (MODELS, CORPORA), "quick": (("deltanet",), (CODE,)), "paper": (MODELS, CORPORA)}
_DOCS_STEPS = {"paper": 300}  # the docs corpus holds ~0.4M training bytes: 3,000 steps would be ~220 epochs
_BUDGET = "over ne7's quick budget of 6 CPU-minutes"
_NOT_RUN = {  # (model, corpus) → why it is not judged at quick (wall time of the committed quick records)
    ("deltanet", "code"): None,
    ("mamba", "code"): f"Mamba's pair on 3 seeds adds 6 runs of 33–34 s, 3.3 CPU-minutes: {_BUDGET}",
    ("deltanet", "docs"): f"the docs pair on 3 seeds adds 6 runs of 39 s, 3.9 CPU-minutes: {_BUDGET}",
    ("mamba", "docs"): f"the docs pair on 3 seeds adds 6 runs of 31–33 s, 3.2 CPU-minutes: {_BUDGET}",
}


def _train(preset: str, corpus: str) -> TrainConfig:
    from dataclasses import replace

    train = _TRAIN[preset]
    if corpus == "stdlib-docs" and preset in _DOCS_STEPS:
        return replace(train, num_steps=_DOCS_STEPS[preset], warmup_steps=min(train.warmup_steps,
                                                                            _DOCS_STEPS[preset] // 10))
    return train


def check_corpora(corpora: list[str] | None, default: tuple[str, ...] = CORPORA) -> list[str]:
    """``default`` when None; else each item must be a built-in corpus or an existing directory."""
    if corpora is None:
        return list(default)
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
        seeds: training seeds for every cell (default: the preset's; the Transformer may run fewer).
        models: a subset of ``MODELS`` (default: the preset's; at quick DeltaNet, the pair a statement judges there).
        corpora: built-in corpus names or directories of your own files (default: the preset's; at quick the
            code corpus); a directory gets the settings of the code corpus.
    """
    check_preset(preset)
    models = list(_DEFAULT[preset][0]) if models is None else check_choice(ID, "model", models, MODELS)
    corpora = check_corpora(corpora, _DEFAULT[preset][1])
    pair_seeds, ref_seeds = _SEEDS[preset]
    out: list[RunConfig] = []
    for corpus in corpora:
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
    """The largest rise of the smoothed loss above its running minimum (nats; 0 for a loss that never rises;
    NaN without losses)."""
    best, rise = float("inf"), 0.0 if losses else float("nan")
    for v in smoothed(losses, window):
        best = min(best, v)
        rise = max(rise, v - best)
    return rise


def final_train_loss(losses: list[float]) -> float:
    """The mean of the last tenth (at least one) of the logged training losses (NaN without losses)."""
    k = max(1, len(losses) // 10)
    return sum(losses[-k:]) / k if losses else float("nan")


def with_metrics(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of the finished records whose summary also holds ``loss_rise`` and ``final_train_loss`` from their
    logged losses (a summary that already holds ``loss_rise``, as a synthetic record may, keeps it)."""
    def losses(r):
        return r.get("history", {}).get("loss") or []

    out = with_metric(records, "loss_rise", lambda r: r["summary"].get("loss_rise", loss_rise(losses(r))))
    return with_metric(out, "final_train_loss", lambda r: final_train_loss(losses(r)))


# ----------------------------------------------------------------------------- paper, statements, verdict


def _table4(metric: str) -> dict[tuple[str, str, str], float]:
    """NE Table 4's authors' FineWeb rows for one metric, keyed by (model, size, eig_range)."""
    def key(row):
        ok = row["metric"] == metric and row["variant"] and "FW" in row["setting"]
        return (row["model"].lower(), row["setting"], row["variant"]) if ok else None

    return {k: v["paper_value"] for k, v in paper_lookup({"ne_table4": "value"}, key).items()}


def paper_rows() -> dict[tuple[str, str], dict[str, Any]]:
    """NE Table 4, the authors' FineWeb rows at 340M/370M (Wiki and LAMBADA ppl), keyed by (model, eig_range)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for metric in ("wiki_ppl", "lambada_ppl"):
        for (model, size, eig), value in _table4(metric).items():
            if size in ("340M, FW-100B", "370M, FW-100B"):
                out.setdefault((model, eig), {"paper_source": ["NE Table 4"], "paper_provenance": "paper text"})[
                    f"paper_{metric}"] = value
    return out


def wiki_gaps() -> dict[tuple[str, str], float]:
    """NE Table 4's Wiki-ppl gap per FineWeb pair: ln(ppl of [-1,1] / ppl of [0,1]), keyed by (model, size)."""
    ppl = _table4("wiki_ppl")
    return {(m, size): math.log(ppl[(m, size, "[-1,1]")] / v) for (m, size, eig), v in ppl.items() if eig == "[0,1]"}


def statements() -> list[Statement]:
    """ne7's statements (see the module docstring): stability, perplexity and extrapolation, per model."""
    gaps = wiki_gaps()
    (worst_m, worst_size), margin = max(gaps.items(), key=lambda kv: kv[1])
    size_of = {"deltanet": "340M, FW-100B", "mamba": "370M, FW-100B"}
    out = []

    def quick(model, corpus="code"):
        reason = _NOT_RUN[(model, corpus)]
        return {"not_run": {"quick": reason}, "presets": ("paper",)} if reason else {}

    def pair(model, corpus):
        return ({"corpus": corpus, "model": model, "eig_range": "[-1,1]"},
                {"corpus": corpus, "model": model, "eig_range": "[0,1]"})

    for m in FAMILIES:
        name = NAMES[m]
        out.append(Statement(
            f"{m}-stable", f"{name} trains stably in both ranges with identical hyperparameters", "NE §5.3, App. E.3",
            "paper text", "possible", "every", at_most(round(LOSS_RISE_MAX, 6), "loss_rise"),
            f"no spike: the smoothed loss never rises more than a tenth of a uniform guess's loss (0.1 × ln {EOD + 1} "
            f"= {LOSS_RISE_MAX:.3f} nats) above its running minimum; NE ran one model per range, so every seed",
            where={"model": m, "eig_range": EIG_RANGES}, **quick(m)))
        for corpus in ("code", "docs"):
            neg, pos = pair(m, corpus)
            out.append(Statement(
                f"{m}-{corpus}-ppl", f"{name} [-1,1] reaches about the same validation perplexity as [0,1] "
                f"({corpus})", "NE Table 4 (Wiki ppl)", "paper text", "comparison", "median",
                at_most(round(margin, 6), "val_loss"),
                f"no worse than the largest gap between the ranges that Table 4 calls comparable: ln(ppl ratio) "
                f"{margin:.4f} ({NAMES[worst_m]} {worst_size.split(',')[0]}); medians of seeds",
                where=neg, against=pos, paper=round(gaps[(m, size_of[m])], 6), **quick(m, corpus)))
    neg, pos = pair("deltanet", "code")
    out.append(Statement(
        "deltanet-code-beyond", "DeltaNet [-1,1] has lower perplexity on code beyond the training context",
        "NE Fig. 5", "paper text", "comparison", "median", at_most(0.0, "test_loss_beyond"),
        "the direction Fig. 5 shows (a plot, no number): ln(ppl ratio) beyond the training context ≤ 0; "
        "medians of seeds", where=neg, against=pos))
    neg, pos = pair("mamba", "code")
    out.append(Statement(
        "mamba-code-beyond", "Mamba [-1,1] has higher perplexity on code beyond the training context",
        "NE §5.3, Figs. 5 and 10", "paper text", "comparison", "median", at_least(0.0, "test_loss_beyond"),
        "the direction NE reports (plots, no number): ln(ppl ratio) beyond the training context ≥ 0; medians of "
        "seeds", where=neg, against=pos, **quick("mamba")))
    return out


def verdict(records: list[dict[str, Any]], preset: str, checks: list | None = None) -> Verdict:
    """ne7's statements judged on the records of one preset's grid (ne7 has no exact checks)."""
    paper = paper_rows()
    return decide(ID, preset, with_metrics(records), statements(), cell_of=cell_of, label_of=label_of,
                  paper_of=lambda c: paper.get((c["model"], c["eig_range"]), {}))


def tokens_per_second(record: dict[str, Any]) -> float:
    """Training tokens per second of a record: steps × batch × context over its training time."""
    t = record["config"]["train"]
    secs = record["provenance"].get("train_time_s") or float("nan")
    return t["num_steps"] * t["batch_size"] * t["max_len"] / secs if secs == secs and secs > 0 else float("nan")


def bits_per_byte(loss_nats: float) -> float:
    """Cross-entropy in nats per byte → bits per byte."""
    return loss_nats / math.log(2)


__all__ = ["CORPORA", "HEADLINE", "ID", "MODELS", "bits_per_byte", "cell_of", "final_train_loss", "grid", "label_of",
           "loss_rise", "paper_rows", "smoothed", "statements", "tokens_per_second", "verdict", "wiki_gaps",
           "with_metrics"]
