"""The records browser: every recorded run's accuracy by length, one run or one (claim, task, model, setting) at a time.

``run_explorer`` is a Vega-Lite explorer (``site.explorers``): it works on the site without a kernel.
``results_explorer`` is an ipywidgets browser over every record, for a running kernel. Each claim's own explorers
live in its page module (``statetrack.site.pages``).

Used in: ne1, ne3, ne4, bl4, bl6 (``run_explorer``); x2 (``results_explorer``).
"""

from __future__ import annotations

import altair as alt
import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd

from statetrack.claims.names import MODEL_NAMES
from statetrack.site.explorers import Explorer, radio, thin
from statetrack.site.plotting import explorer, style
from statetrack.claims import PRESETS, holders
from statetrack.runs.store import load_records, tidy


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
    panels = alt.layer(line, rule, data=runs).properties(width=230, height=150).facet(
        facet=alt.Facet("run:N", title=None, sort=list(dict.fromkeys(runs["run"])) if ordered else "ascending"),
        columns=3).add_params(metric)
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
            part = tidy([rec])
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


def results_explorer(frame: pd.DataFrame, initial: dict[str, str] | None = None) -> widgets.Widget:
    """Pick a claim, a task, a model and a setting (modulus, group, ...); see accuracy by length of its recorded runs.

    Each menu offers only what the menus above it leave. It starts at ``initial`` (keys claim, task,
    model, setting; ``first_selection(frame, initial)`` says what that resolves to), which is what a
    page without a kernel shows: draw the same selection with ``results_figure`` as the page's static
    figure.
    Used in: x2.
    """
    menus = {name: widgets.Dropdown(description=name, layout=widgets.Layout(width="420px"))
             for name in ("claim", "task", "model", "setting")}
    column = {"claim": "claim", "task": "task", "model": "label", "setting": "setting"}
    metric = widgets.ToggleButtons(options=[("normalized", "normalized"), ("accuracy", "acc")], description="metric")
    out = widgets.Output()
    busy = [False]

    def refill(start: int) -> None:
        names = list(menus)
        for i, name in enumerate(names[start:], start):
            fixed = {column[n]: menus[n].value for n in names[:i]}
            opts = _choices(frame, **fixed)
            busy[0] = True
            menus[name].options = opts
            want = (initial or {}).get(name)
            menus[name].value = want if want in opts else (opts[0] if opts else None)
            busy[0] = False

    def draw(*_):
        if busy[0]:
            return
        with out:
            out.clear_output(wait=True)
            if any(m.value is None for m in menus.values()):
                print("no recorded runs")
                return
            fig = results_figure(frame, menus["claim"].value, menus["task"].value, menus["model"].value,
                                 menus["setting"].value, metric.value)
            plt.show()
            plt.close(fig)

    def changed(name: str):
        def on_change(_):
            if busy[0]:
                return
            names = list(menus)
            if names.index(name) + 1 < len(names):
                refill(names.index(name) + 1)
            draw()
        return on_change

    refill(0)
    initial = None  # only the first fill follows it
    for name, menu in menus.items():
        menu.observe(changed(name), "value")
    metric.observe(draw, "value")
    draw()
    return widgets.VBox([widgets.HBox([menus["claim"], menus["task"]]), widgets.HBox([menus["model"], menus["setting"]]),
                         metric, out])


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
