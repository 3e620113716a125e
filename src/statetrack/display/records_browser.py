"""The records browser: every recorded run's accuracy by length, one run or one (claim, task, model, setting) at a time.

``run_explorer`` and ``results_explorer`` (every record, one menu over its (claim, task, model, setting)) are
Vega-Lite explorers (``display.explorers``): they work on the site without a kernel. Each claim's own explorers live
in its page module (``statetrack.claims``).

Used in: ne1, ne3, ne4, bl4, bl6 (``run_explorer``); x2 (``results_explorer``).
"""

from __future__ import annotations

import altair as alt
import matplotlib.pyplot as plt
import pandas as pd

from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.display.explorers import WIDTH, Explorer, picked, radio, select, thin
from statetrack.display.plots import style
from statetrack.verdicts.recipes import PRESETS
from statetrack.verdicts.registry import holders
from statetrack.display.plots import records_frame
from statetrack.runs.store import load_records


def run_explorer(frame: pd.DataFrame, train_max_len: int, log_length: bool = False,
                 ordered: bool = False) -> Explorer:
    """Every recorded run's accuracy by length, small multiples: one panel per model and eigenvalue range, one line
    per seed; pick the metric (normalized accuracy, accuracy, sequence accuracy). The dashed rule is the longest
    training length. ``log_length``: test lengths on a log axis (short training lengths beside one long test
    length); ``ordered``: panels in the frame's order (else alphabetical)."""
    runs = frame.assign(run=[f"{MODEL_NAMES.get(m, m)} {e}".strip() for m, e in zip(frame["model"], frame["eig_range"])])
    metrics = {"normalized": "normalized accuracy", "acc": "accuracy", "seq_acc": "sequence accuracy"}
    cols = [c for c in metrics if c in runs]
    runs = thin(runs, "length", keep=[train_max_len])[["run", "seed", "length", *cols]].round(3)
    metric = radio("metric", cols, "normalized", label="metric", labels=[metrics[c] for c in cols])
    line = alt.Chart().transform_calculate(value=f"datum[{metric.name}]").mark_line(
        point=alt.OverlayMarkDef(size=12)).encode(
        x=alt.X("length:Q", title="test length", scale=alt.Scale(type="log") if log_length else alt.Undefined),
        y=alt.Y("value:Q", title=None, scale=alt.Scale(domain=[-0.2, 1.05])),
        color=alt.Color("seed:N", title="seed", scale=alt.Scale(scheme="dark2")),
        tooltip=["run:N", "seed:N", "length:Q", alt.Tooltip("value:Q", format=".3f")])
    rule = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(train_max_len))
    columns, width = (4, 150) if runs["run"].nunique() > 6 else (3, 215)  # seven panels (ne4) in two rows
    panels = alt.layer(line, rule, data=runs).properties(width=width, height=150).facet(
        facet=alt.Facet("run:N", title=None, sort=list(dict.fromkeys(runs["run"])) if ordered else "ascending"),
        columns=columns).add_params(metric)
    return Explorer(panels, "run explorer")


# ----------------------------------------------------------------------------- every recorded result


def _setting(task: dict) -> str:
    """A task config's settings in words ("modulus=5", "group=S3, elements=all"), the name and labels left out."""
    parts = [f"{k}={v}" for k, v in sorted(task.items()) if k not in ("name", "supervision")]
    return ", ".join(parts) or "–"


def results_frame(claim_ids: list[str] | None = None) -> pd.DataFrame:
    """Every stored run, one row per (run, test length) under each claim whose grid holds it at the run's
    preset (else the claim it was made for): ``results.tidy`` plus ``claim``, ``setting`` (the task's settings
    in words, e.g. "modulus=5") and ``labels`` (supervision). ``claim_ids`` keeps those claims' rows.

    Records come from ``results.results_dir()`` (``data/results`` unless ``STATETRACK_RESULTS_DIR`` moves
    it). Runs without accuracy by length (diverged, failed, or measured otherwise) add no rows.
    Used in: x2 (the explorer over all recorded results).
    """

    records = load_records()
    held = {p: holders(p) for p in PRESETS if any(r.get("preset") == p for r in records)}
    frames = []
    for rec in records:
        try:
            part = records_frame([rec])
        except (KeyError, TypeError):  # a record measured otherwise (no accuracy by length)
            continue
        if part.empty:
            continue
        task = rec["config"]["task"]
        for cid in held.get(rec.get("preset"), {}).get(rec["key"]) or [rec["claim"]]:
            if not claim_ids or cid in claim_ids:
                frames.append(part.assign(claim=cid, setting=_setting(task), labels=task.get("supervision", "")))
    cols = ["claim", "task", "label", "setting", "labels", "seed", "lr", "key", "length", "acc", "normalized",
            "seq_acc", "stale"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def _choices(frame: pd.DataFrame, **fixed: str) -> list[str]:
    sub = frame
    for k, v in fixed.items():
        sub = sub[sub[k] == v]
    return sorted(sub[[c for c in ("claim", "task", "label", "setting") if c not in fixed][0]].unique()) if len(sub) else []


def results_figure(frame: pd.DataFrame, claim: str, task: str, model: str, setting: str,
                   metric: str = "normalized"):
    """Accuracy by length of every recorded run of one (claim, task, model label, setting): one line per
    seed (and learning rate, when the cell ran several), with the run's mean in the legend.

    Used in: x2 (the static state of ``results_explorer``) and ``results_explorer``.
    """
    style()
    sub = frame[(frame["claim"] == claim) & (frame["task"] == task) & (frame["label"] == model)
                & (frame["setting"] == setting)]
    fig, ax = plt.subplots(figsize=(7.2, 3.4))
    several_lrs = sub["lr"].nunique() > 1
    for (seed, lr), run in sub.groupby(["seed", "lr"]):
        run = run.sort_values("length")
        name = f"seed {seed}" + (f", lr {lr:g}" if several_lrs else "")
        ax.plot(run["length"], run[metric], marker="." if len(run) < 30 else None, lw=1.3,
                label=f"{name}: mean {run[metric].mean():.2f}")
    if metric == "normalized":
        ax.axhline(0, color="0.6", lw=0.7, ls=":")
    ax.set_ylim(-0.35 if metric == "normalized" else -0.05, 1.05)
    ax.set_xlabel("test length")
    ax.set_ylabel({"normalized": "normalized accuracy", "acc": "accuracy", "seq_acc": "sequence accuracy"}[metric])
    ax.set_title(f"{claim}: {model} on {task} ({setting})", fontsize=10)
    if len(sub):
        ax.legend(fontsize=9.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    else:
        ax.text(0.5, 0.5, "no recorded run", ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    return fig


#: what a line of ``results_explorer`` is: the columns that pick one run series
CHOICE = ("claim", "task", "label", "setting")


def results_choices(frame: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """Every (claim, task, model label, setting) the records hold, sorted: the explorer's menu."""
    return sorted(frame[list(CHOICE)].drop_duplicates().itertuples(index=False, name=None)) if len(frame) else []


def results_table(frame: pd.DataFrame, most: int = 25) -> pd.DataFrame:
    """``results_frame`` as the explorer reads it: columns choice (the index of the run's (claim, task, model,
    setting) in ``results_choices``), line ("seed s", with ", lr l" where a choice ran several learning rates and
    " (run <key>)" where one seed ran in several configurations),
    length, normalized, acc (3 decimals); each run at no more than ``most`` test lengths (``explorers.thin``)."""
    index = {c: i for i, c in enumerate(results_choices(frame))}
    parts = []
    for _, run in frame.groupby("key", sort=True):
        run = thin(run, "length", most=most)
        parts.append(run)
    cols = ["choice", "line", "length", "normalized", "acc"]
    if not parts:
        return pd.DataFrame(columns=cols)
    rows = pd.concat(parts, ignore_index=True)
    choice = [index[c] for c in rows[list(CHOICE)].itertuples(index=False, name=None)]
    rows = rows.assign(choice=choice)
    several = rows.groupby("choice")["lr"].transform("nunique") > 1
    twins = rows.groupby(["choice", "seed", "lr"])["key"].transform("nunique") > 1  # runs of one seed, other configs
    line = [f"seed {s}" + (f", lr {lr:g}" if many else "") + (f" (run {k})" if twin else "")
            for s, lr, k, many, twin in zip(rows["seed"], rows["lr"], rows["key"], several, twins)]
    return pd.DataFrame({"choice": choice, "line": line, "length": rows["length"],
                         "normalized": rows["normalized"].astype(float).round(3),
                         "acc": rows["acc"].astype(float).round(3)})[cols]


def results_explorer(frame: pd.DataFrame, initial: dict[str, str] | None = None) -> Explorer:
    """Accuracy by length of every recorded run: one menu over the (claim · task · model · setting) the records
    hold, one line per seed, and the metric (``results_table``: each run thinned to 25 test lengths, so the whole
    record fits in the page). It starts at ``first_selection(frame, initial)``. Vega-Lite: works without a kernel.

    Used in: x2.
    """
    choices = results_choices(frame)
    if not choices:
        return Explorer(alt.Chart(pd.DataFrame({"text": ["no recorded runs"]})).mark_text(fontSize=13).encode(
            text="text:N"), "records explorer")
    start = first_selection(frame, initial)
    first = choices.index(tuple(start[k] for k in ("claim", "task", "model", "setting")))
    run = select("choice", range(len(choices)), first, label="claim · task · model · setting",
                 labels=[" · ".join(c) for c in choices])
    metrics = {"normalized": "normalized accuracy", "acc": "accuracy"}
    metric = radio("metric", list(metrics), "normalized", label="metric", labels=list(metrics.values()))
    table = results_table(frame)
    rows = alt.Data(values=table.astype(object).where(table.notna(), None).to_dict("records"))  # past Altair's row cap
    line = alt.Chart(rows).transform_filter(picked(run, "choice")).transform_calculate(
        value=f"datum[{metric.name}]").mark_line(point=alt.OverlayMarkDef(size=14)).encode(
        x=alt.X("length:Q", title="test length", axis=alt.Axis(labelFontSize=11, titleFontSize=12)),
        y=alt.Y("value:Q", title="accuracy (the metric picked)", scale=alt.Scale(domain=[-0.35, 1.05]),
                axis=alt.Axis(labelFontSize=11, titleFontSize=12)),
        color=alt.Color("line:N", title="run", scale=alt.Scale(scheme="tableau10")),
        tooltip=[alt.Tooltip("line:N", title="run"), "length:Q", alt.Tooltip("value:Q", format=".3f")])
    chart = line.add_params(run, metric).properties(width=WIDTH, height=260)
    return Explorer(chart.configure_legend(labelFontSize=11, titleFontSize=12), "records explorer")


def first_selection(frame: pd.DataFrame, initial: dict[str, str] | None = None) -> dict[str, str]:
    """The selection ``results_explorer(frame, initial)`` starts with: ``initial`` where the records have it,
    else the first option of each menu given the ones above it; {} when there is no record at all."""
    sel: dict[str, str] = {}
    for name in ("claim", "task", "model", "setting"):
        opts = _choices(frame, **{c: sel[n] for n, c in (("claim", "claim"), ("task", "task"), ("model", "label"))
                                   if n in sel})
        if not opts:
            return {}
        want = (initial or {}).get(name)
        sel[name] = want if want in opts else opts[0]
    return sel
