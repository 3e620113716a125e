"""Claim ne7 (NE §5.3, Table 4, Figs. 5, 9 and 10): language modelling with [0,1] versus [-1,1], in miniature.

NE train DeltaNet (340M, 1.3B) and Mamba (370M) on 100B FineWeb tokens in both eigenvalue ranges with identical
hyperparameters (App. E.3): training is as stable with [-1,1], validation perplexity about the same (Table 4), and
beyond the training context DeltaNet [-1,1] has lower perplexity on code (Figs. 5 and 10), Mamba [-1,1] higher.
Their scale is out of reach; the direction is not. We train byte-level models (K = 257, each pair differing only in
``eig_range``, embeddings untied) on the standard library's code and docs (``tasks.byte_lm``) and compare
perplexities as differences of mean losses (log ratios) from the records' ``val_loss`` and ``test_loss_beyond``.
The Transformer (rotary positions) is a reference, never judged. Nothing is exact.

Used in: notebooks/ne7_language_modelling.md, ``statetrack verify``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any

from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.claim import Claim, paper_at
from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.verdicts.claim import paper_lookup
from statetrack.verdicts.pilots import RECIPE, Pilot, RecipePilots
from statetrack.verdicts.recipes import QUICK_SEEDS, Cell, check_choice, check_seeds, expand
from statetrack.verdicts.seed_statistics import critical
from statetrack.verdicts.statements import PAPER_TOLERANCE, Statement, at_least, at_most, with_metric
from statetrack.config import ConfigError, EvalConfig, RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.runs.cost import estimate_seconds, stored_throughput
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
LOSS_RISE_MAX = PAPER_TOLERANCE * math.log(EOD + 1)  # nats: a tenth of a uniform guess's loss over 257 classes
SMOOTH = 5  # logged losses per moving mean
QUICK_STEPS = 300

_SHAPE = {  # d_model, layers, MLP ratio; heads (DeltaNet, Transformer); Mamba's d_state, expand; conv width
    "smoke": (8, 1, 0, 2, 2, 1, 0), "quick": (128, 2, 2, 4, 8, 1, 4), "paper": (512, 8, 4, 8, 16, 2, 4)}
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
#: The quick grid trains the code corpus only; the docs pairs run at paper (why, in numbers: ``docs_not_run``).
QUICK_CORPORA = (CODE,)
#: preset → (the pairs' seeds, the Transformer's): five pairs, the fewest on which a one-sided sign test of NE's
#: directions can decide (5 of 5 agreeing: p = 1/32 ≤ 0.05; 4 of 4 gives 1/16)
_SEEDS = {"smoke": ((0,), (0,)), "quick": (tuple(range(QUICK_SEEDS[0], QUICK_SEEDS[0] + 5)), QUICK_SEEDS[:1]),
          "paper": (tuple(range(5)), (0, 1, 2))}
_DEFAULT = {"smoke": (MODELS, CORPORA), "quick": (FAMILIES, QUICK_CORPORA), "paper": (MODELS, CORPORA)}
#: The cpu preset's pairs: the count ``pairs.cpu_pairs`` derives from the quick and retired pairs' spread (a test checks
#: it), on the cpu seed block; the Transformer reference on the block's first seed.
CPU_PAIRS = 16
_DOCS_STEPS = 300  # at paper: the docs corpus holds ~0.4M training bytes, 3,000 steps would be ~220 epochs
_DOCS_TRAIN = replace(_TRAIN["paper"], num_steps=_DOCS_STEPS, warmup_steps=_DOCS_STEPS // 10)



def _model(preset: str, m: str, eig: str | None):
    d, layers, mlp, heads, state, expand_, conv = _SHAPE[preset]
    own = {"deltanet": dict(num_heads=heads, d_conv=conv), "mamba": dict(d_state=state, expand=expand_, d_conv=conv),
           "transformer": dict(num_heads=heads, positions="rotary")}[m]
    return model_config(m, **({"eig_range": eig} if eig else {}), d_model=d, num_layers=layers, mlp_ratio=mlp, **own)


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
    """corpus × model × eig_range × seed; asked for, any model and corpus (or a directory, with the code corpus's
    settings) runs at the preset's settings, the Transformer on its own seeds unless ``seeds`` are given."""
    check_preset(preset)
    models = list(_DEFAULT[preset][0]) if models is None else check_choice(ID, "model", models, MODELS)
    pair_seeds, ref_seeds = _SEEDS[preset]
    out: list[RunConfig] = []
    for corpus in check_corpora(corpora, _DEFAULT[preset][1]):
        task = task_config("byte_lm", corpus=corpus)
        for m in models:
            eigs = EIG_RANGES if m in FAMILIES else (None,)
            train = _DOCS_TRAIN if (preset, corpus) == ("paper", "stdlib-docs") else _TRAIN[preset]
            cells = [Cell(task, _model(preset, m, e), train, _EVAL[preset]) for e in eigs]
            out += expand(cells, check_seeds(seeds, pair_seeds if m in FAMILIES else ref_seeds))
    return out


def cpu_grid(seeds: list[int] | None = None, models: list[str] | None = None,
             corpora: list[str] | None = None) -> list[RunConfig]:
    """ne7 at the cpu preset: quick's byte models and recipe (a stated change of NE's size, depth and context) on
    each paper corpus whose table the cpu plan runs (``verdicts.cpu.BUDGETS``; ``corpora`` given: those), on
    ``CPU_PAIRS`` pairs from the cpu seed block (``seeds`` given: those)."""
    from statetrack.verdicts import cpu

    if corpora is None:  # the paper's corpora the plan runs
        corpora = [c.task.corpus for c in grid("paper") if cpu.table_of(c) in cpu.BUDGETS]
        if not corpora:
            return []
    corpora = check_corpora(list(dict.fromkeys(corpora)))
    models = list(MODELS) if models is None else check_choice(ID, "model", models, MODELS)
    base = range(cpu.SEED_BASE, cpu.SEED_BASE + CPU_PAIRS)
    out: list[RunConfig] = []
    for m in models:
        own = check_seeds(seeds, ()) if seeds is not None else list(base) if m in FAMILIES else [base[0]]
        out += grid("quick", seeds=own, models=[m], corpora=corpora)
    return out


def corpus_name(corpus: str) -> str:
    return CORPUS_NAMES.get(corpus, corpus)


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """corpus ("code", "docs" or a path), model, eig_range ("" if none)."""
    cfg = record["config"]
    return {"corpus": corpus_name(cfg["task"]["corpus"]), "model": cfg["model"]["name"],
            "eig_range": cfg["model"].get("eig_range", "")}


def label_of(cell: dict[str, Any]) -> str:
    return f"{cell['corpus']}: {NAMES[cell['model']]} {cell['eig_range']}".strip()  # "code: DeltaNet [-1,1]"


def smoothed(losses: list[float], window: int = SMOOTH) -> list[float]:
    """Trailing moving mean over ``window`` values (fewer at the start)."""
    return [sum(losses[max(0, i - window + 1):i + 1]) / (i + 1 - max(0, i - window + 1)) for i in range(len(losses))]


def loss_rise(losses: list[float], window: int = SMOOTH) -> float:
    """The largest rise of the smoothed loss above its running minimum (nats; NaN without losses)."""
    best, rise = float("inf"), 0.0 if losses else float("nan")
    for v in smoothed(losses, window):
        best = min(best, v)
        rise = max(rise, v - best)
    return rise


def final_train_loss(losses: list[float]) -> float:
    """The mean of the last tenth (at least one) of the logged training losses (NaN without losses)."""
    k = max(1, len(losses) // 10)
    return sum(losses[-k:]) / k if losses else float("nan")


def with_metrics(records: list[dict[str, Any]], preset: str | None = None) -> list[dict[str, Any]]:
    """Records with ``loss_rise`` (unless a synthetic summary holds it) and ``final_train_loss`` in their summary
    (the same at every ``preset``)."""
    def losses(r):
        return r.get("history", {}).get("loss") or []

    out = with_metric(records, "loss_rise", lambda r: r["summary"].get("loss_rise", loss_rise(losses(r))))
    return with_metric(out, "final_train_loss", lambda r: final_train_loss(losses(r)))


def _table4(metric: str) -> dict[tuple[str, str, str], float]:
    """NE Table 4's authors' FineWeb rows for one metric, keyed by (model, size, eig_range)."""
    def key(row):
        ok = row["metric"] == metric and row["variant"] and "FW" in row["setting"]
        return (row["model"].lower(), row["setting"], row["variant"]) if ok else None

    return {k: v["paper_value"] for k, v in paper_lookup({"ne_table4": "value"}, key).items()}


def paper_rows() -> dict[tuple[str, str], dict[str, Any]]:
    """NE Table 4's Wiki and LAMBADA ppl at 340M/370M (FineWeb), keyed by (model, eig_range)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for metric in ("wiki_ppl", "lambada_ppl"):
        for (model, size, eig), value in _table4(metric).items():
            if size in ("340M, FW-100B", "370M, FW-100B"):
                out.setdefault((model, eig), {"paper_source": ["NE Table 4"], "paper_provenance": "paper text"})[
                    f"paper_{metric}"] = value
    return out


def wiki_gaps() -> dict[tuple[str, str], float]:
    """ln(Wiki ppl of [-1,1] / of [0,1]) per FineWeb pair of NE Table 4, keyed by (model, size)."""
    ppl = _table4("wiki_ppl")
    return {(m, size): math.log(ppl[(m, size, "[-1,1]")] / v) for (m, size, eig), v in ppl.items() if eig == "[0,1]"}


@functools.lru_cache(maxsize=None)
def docs_not_run(model: str) -> str:
    """Why ``model``'s docs pair is not judged at quick: the runs it would add to the quick grid and their training
    time beside the quick grid's, estimated from the measured CPU throughput (``runs.cost.estimate_seconds``)."""
    tp = stored_throughput("cpu")

    def cost(cfgs):
        est = [estimate_seconds(c, tp) for c in cfgs]
        return len(cfgs), (None if None in est else sum(est) / 60)

    (n, docs), (n_quick, quick) = cost(grid("quick", models=[model], corpora=["stdlib-docs"])), cost(grid("quick"))
    timed = docs is not None and quick is not None
    minutes = f" (about {docs:.1f} CPU-minutes of training, estimated from measured throughput)" if timed else ""
    beside = f" of about {quick:.1f}" if timed else ""
    return (f"the quick grid trains the code corpus only: {NAMES[model]}'s docs pair on the same seeds would add {n} "
            f"runs{minutes} to its {n_quick}{beside}; the paper preset runs it")


def statements() -> list[Statement]:
    """Per model: stable training, about the same perplexity per corpus (one-sided: the wider range costs nothing;
    on code the paper's, on docs ours), and the direction beyond the training context on code (a paired sign test
    over the seeds)."""
    gaps = wiki_gaps()
    (worst_m, worst_size), margin = max(gaps.items(), key=lambda kv: kv[1])
    size_of = {"deltanet": "340M, FW-100B", "mamba": "370M, FW-100B"}

    def quick(model, corpus):
        if corpus in map(corpus_name, QUICK_CORPORA):
            return {}
        return {"not_run": {"quick": docs_not_run(model)}, "presets": ("paper",)}

    def pair(model, corpus="code"):
        return {"where": {"corpus": corpus, "model": model, "eig_range": "[-1,1]"},
                "against": {"corpus": corpus, "model": model, "eig_range": "[0,1]"}}

    out, n_pairs = [], len(_SEEDS["quick"][0])
    for m in FAMILIES:
        name = NAMES[m]
        out.append(Statement(
            f"{m}-stable", f"{name} trains stably in both ranges with identical hyperparameters", "NE §5.3, App. E.3",
            "paper text", "learns", "every", at_most(round(LOSS_RISE_MAX, 6), "loss_rise"),
            f"no spike: the smoothed loss never rises more than a tenth of a uniform guess's loss (0.1 × ln {EOD + 1} "
            f"= {LOSS_RISE_MAX:.3f} nats) above its running minimum; NE ran one model per range, so every seed; "
            "a run that did not learn (did not fit) breaks it, since a flat, untrained loss never rises",
            where={"model": m, "eig_range": EIG_RANGES}, reads=(f"ne7-s53-{m}-stable",)))
        for corpus in ("code", "docs"):
            paper_reading = corpus == "code"
            out.append(Statement(
                f"{m}-{corpus}-ppl", f"{name} [-1,1] reaches about the same validation perplexity as [0,1] "
                f"({corpus})" + ("" if paper_reading else "; ours (a second corpus; the paper's sentence is "
                                                         "judged on code)"),
                "NE Table 4 (Wiki ppl)", "paper text" if paper_reading else "ours", "comparison", "median",
                at_most(round(margin, 6), "val_loss"),
                f"about the same: the paired seeds' ln(ppl ratio) within ± the largest gap between the ranges that "
                f"Table 4 calls comparable, {margin:.4f} ({NAMES[worst_m]} {worst_size.split(',')[0]}), shown by two "
                f"one-sided sign tests at 0.05 on the paired seeds ({n_pairs} at quick: all must lie within; "
                f"{CPU_PAIRS} at cpu: {critical(CPU_PAIRS)} must), "
                "else inconclusive; both ranges must have learned", paper=round(gaps[(m, size_of[m])], 6),
                fit_sides=("where", "against"), test="equivalence",
                reads=(f"ne7-t4-{m}-same-ppl",) if paper_reading else (), **pair(m, corpus), **quick(m, corpus)))
    out.append(Statement(
        "deltanet-code-beyond", "DeltaNet [-1,1] has lower perplexity on code beyond the training context",
        "NE Fig. 5", "paper text", "comparison", "median", at_most(0.0, "test_loss_beyond"),
        "the direction Fig. 5 shows (a plot, no number): ln(ppl ratio) beyond the training context < 0, decided by "
        "a one-sided sign test over the paired seeds; both ranges must have learned", test="sign",
        fit_sides=("where", "against"), reads=("ne7-fig5-deltanet-code-beyond",), **pair("deltanet")))
    out.append(Statement(
        "mamba-code-beyond", "Mamba [-1,1] has higher perplexity on code beyond the training context",
        "NE §5.3, Figs. 5 and 10", "paper text", "comparison", "median", at_least(0.0, "test_loss_beyond"),
        "the direction NE reports (plots, no number): ln(ppl ratio) beyond the training context > 0, decided by a "
        "one-sided sign test over the paired seeds; both ranges must have learned", test="sign",
        fit_sides=("where", "against"), reads=("ne7-fig10-mamba-code-beyond",), **pair("mamba")))
    return out


#: The quick recipe's recorded pilots (``verdicts.pilots``): judged on ``test_ppl_within``, lower is better.
RECIPE_PILOTS = RecipePilots("test_ppl_within", True, (
    Pilot(RECIPE, "DeltaNet's pair on code, 300 steps", {}, seeds=(100, 101)),
    Pilot("150 steps", "half the steps", {}, {"train.num_steps": 150, "train.warmup_steps": 15}, seeds=(100,))))


CLAIM = Claim(ID, grid, statements, cell_of, headline="deltanet-code-beyond", label_of=label_of,
              paper_of=paper_at(paper_rows, "model", "eig_range"), judged_records=with_metrics,
              recipe_pilots=RECIPE_PILOTS, cpu_grid=cpu_grid,
              title="Language modelling with [0,1] versus [-1,1]",
              paper="NE", source="Table 4, Fig 5", notebook="ne7_language_modelling")
