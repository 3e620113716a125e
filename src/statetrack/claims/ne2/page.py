"""What ne2's page (counting mod 3) computes beside its verdict: the stored orbits on the input 1^k, the rounding
cycles of two layers, the run table's scores and the numbers its prose reads.

- ``orbits``, ``orbit_summary``, ``orbit_values``: every real diagonal draw's and the rotation's eventual period on
  1^k, per dtype (``theory.rotations``), summarized per case, and what the prose reads of them.
- ``cycle_table``: ``theory.counting_mod3.rounding_cycles`` at a preset's sizes, one row per layer 2 and dtype.
- ``run_scores``: a run's columns of the run table.
- ``statement_values``: the numbers the statements' rules rest on (the impossibility bound, BL's table).

Its figures and explorers:

- ``orbit_periods``: how many orbits end in each period, and the share already periodic by step k.
- ``orbit_table``, ``orbit_explorer``: the stored state on 1^k of a 2×2 rotation or a real diagonal, in a chosen
  dtype, over a grid of φ, a and b (Vega-Lite, so it works on the site without a kernel).
- ``count_lengths``: the trained runs' accuracy by length, bilinear models beside the Mamba and DeltaNet stacks.

Used in: notebooks/ne2_counting_mod3_needs_complex_eigenvalues.md, tests/test_page_ne2.py.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.claims.ne2 import claim as ne2
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.explorers import WIDTH, Explorer, picked, radio, slider
from statetrack.display.plots import PAGE_WIDTH, style, records_frame
from statetrack.theory import rotations as rot
from statetrack.runs import store as results
from statetrack.theory import counting_mod3
from statetrack.theory.rotations import best_readout_accuracy, diagonal_orbit, eventual_period, rotation
from statetrack.display.plots import accuracy_by_length

DTYPES = ((torch.float32, "fp32"), (torch.bfloat16, "bf16"))  # the stored dtypes, with their names in a case


def orbits(draws: int, steps: int) -> pd.DataFrame:
    """One row per orbit on 1^k: ``draws`` real diagonals (``rotations.diagonal_periods``, seed 0: the exact checks'
    draws) and the rotation by 2π/3 over ``steps`` ones, per dtype of ``DTYPES``; columns case, period, entry (the
    step its cycle starts), a (NaN for the rotation) and, for the rotation, wrong counts (steps its readout
    misses k mod 3)."""
    rows = []
    for dtype, name in DTYPES:
        res = rot.diagonal_periods(draws, dtype, seed=0)
        rows += [{"case": f"real diagonal, {name}", "period": int(p), "entry": int(e), "a": float(a)}
                 for p, e, a in zip(res["period"], res["entry"], res["a"])]
        states = rot.rotation_orbit(ne2.MODULUS, steps, dtype)  # (K+1, 2)
        entry, period = rot.eventual_period(states.unsqueeze(1))  # (1,), (1,)
        wrong = int((rot.rotation_readout(states, ne2.MODULUS) != torch.arange(steps + 1) % ne2.MODULUS).sum())
        rows.append({"case": f"rotation by 2π/3, {name}", "period": int(period), "entry": int(entry),
                     "a": float("nan"), "wrong counts": wrong})
    return pd.DataFrame(rows)


def orbit_summary(periods: pd.DataFrame) -> pd.DataFrame:
    """``orbits`` per case: how many orbits, the periods seen, the latest cycle start and the best accuracy any
    readout of such a state reaches on k mod 3 (``rotations.best_readout_accuracy``, the best over its periods)."""
    def best(p):
        return max(rot.best_readout_accuracy(int(x), ne2.MODULUS) for x in set(p))

    return periods.groupby("case", sort=False).agg(**{
        "orbits": ("period", "size"), "periods seen": ("period", lambda p: sorted(set(p))),
        "cycle starts by k": ("entry", "max"), "best readout of k mod 3": ("period", best)})


def orbit_values(periods: pd.DataFrame, steps: int) -> dict[str, Any]:
    """What the prose reads of ``orbits``: the number of diagonal draws per dtype, the rotation's ``steps`` (as
    text), the share of diagonal orbits with period 2, the latest cycle start per dtype and how many diagonal
    orbits end in a period other than 1 or 2."""
    diag = periods[periods["case"].str.startswith("real")]
    fp32 = diag["case"].str.endswith("fp32")
    return {"num_draws": int(fp32.sum()), "rotation_steps": f"{steps:,}",
            "share_period2": float((diag["period"] == 2).mean()),
            "max_entry_fp32": int(diag.loc[fp32, "entry"].max()), "max_entry_bf16": int(diag.loc[~fp32, "entry"].max()),
            "other_periods": int((~diag["period"].isin([1, 2])).sum())}


def cycle_table(preset: str) -> pd.DataFrame:
    """``counting_mod3.rounding_cycles`` at ``preset``'s draws and steps (``claims.ne2.LAYERED_SIZES``), indexed by
    layer 2 and dtype."""

    draws, steps = ne2.LAYERED_SIZES[preset][:2]
    return pd.DataFrame(counting_mod3.rounding_cycles(draws, steps)).set_index(["layer 2", "dtype"])


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A run's scores in the run table: normalized accuracy at the test lengths, accuracy at the longest (500) and
    normalized accuracy in distribution."""
    summary = r.get("summary", {})
    return {"test (normalized)": summary.get("ood_normalized"), "at 500 (accuracy)": summary.get("acc_at_max_len"),
            "in-dist (normalized)": summary.get("id_normalized")}


def statement_values() -> dict[str, Any]:
    """The numbers the statements' rules rest on: BL's best at m = 3 for the diagonal and the rotation, the
    impossibility bound (on the quick test set of ``bound_n`` sequences: ``bound_hits`` right), the paper preset's
    test-set size, the interval's level and tail, the tolerance and the solved level."""
    paper = ne2.paper_rows()
    bound = next(s.rule.threshold for s in ne2.statements() if s.id == "diagonal-cannot-count")
    bound_n = ne2.grid("quick")[0].eval.num_seqs
    return {"paper_diagonal": paper["diagonal"]["paper_best"], "paper_rotation": paper["rotation"]["paper_best"],
            "bound": bound, "bound_n": bound_n, "bound_hits": round(bound * bound_n),
            "paper_n": f'{ne2.grid("paper")[0].eval.num_seqs:,}', "level": ne2.LEVEL, "tail": (1 - ne2.LEVEL) / 2,
            "tolerance": PAPER_TOLERANCE, "solved": 1 - PAPER_TOLERANCE}


def orbit_periods(periods: pd.DataFrame, title: str | None = None) -> Figure:
    """Left: how many orbits end in each period, per case; right: the share already periodic by step k.

    Args:
        periods: one row per orbit, columns ``case`` (e.g. "real diagonal, fp32"), ``period`` (int),
            ``entry`` (the step its cycle starts).
    """
    style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.9), gridspec_kw={"width_ratios": [1, 1.2]})
    cases = list(dict.fromkeys(periods["case"]))
    colors = dict(zip(cases, sns.color_palette("colorblind", len(cases))))
    counts = periods.groupby(["case", "period"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=sorted(set(periods["period"]) | {1, 2, 3}), fill_value=0).loc[cases]
    share = counts.div(counts.sum(axis=1), axis=0)
    share.T.plot.bar(ax=left, color=[colors[c] for c in cases], width=0.8, legend=False, rot=0)
    left.set_xlabel("eventual period of the stored state on $1^k$", fontsize=11)
    left.set_ylabel("share of orbits", fontsize=11)
    left.set_ylim(0, 1.05)
    for case in cases:
        entries = periods.loc[periods["case"] == case, "entry"].sort_values().to_numpy()
        right.step(entries.clip(min=1), (1 + pd.RangeIndex(len(entries))) / len(entries), where="post",
                   color=colors[case], lw=1.6, label=case)
    right.set_xscale("log")
    right.set_xlabel("k (ones read) at which the cycle starts", fontsize=11)
    right.set_ylabel("share of orbits periodic", fontsize=11)
    right.set_ylim(0, 1.05)
    right.legend(fontsize=10, loc="lower right", frameon=True)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    return fig


PHIS = tuple(range(0, 181, 5))  # the rotation angles (degrees) the orbit explorer offers
COEFS = tuple(round(-1.0 + 0.1 * i, 1) for i in range(21))  # its values of a
TERMS = (-1.0, -0.5, 0.0, 0.5, 1.0)  # its values of b
HORIZON = 5_000  # how many ones the explorer reads to find an orbit's eventual period
LONGEST = 360  # the longest period it looks for


def _rotation_orbit(phi: float, steps: int, dtype: torch.dtype) -> torch.Tensor:
    """h_k = R(φ) h_{k−1} from h_0 = (1, 0), φ in degrees, R and every h_k stored in ``dtype``: (steps+1, 2)."""
    import math

    R = rotation(math.radians(phi), dtype)  # (2, 2)
    h = torch.tensor([1.0, 0.0], dtype=dtype)
    rows = [h]
    for _ in range(steps):
        h = R @ h
        rows.append(h)
    return torch.stack(rows)


def _note(entry: int, period: int) -> str:
    if period < 1:
        return f"no period up to {LONGEST} by k = {HORIZON:,}"
    return (f"period {period} from k = {entry}: best readout of k mod 3 = "
            f"{best_readout_accuracy(period, ne2.MODULUS):.2f}")


def orbit_table(steps: int = 36, phis=PHIS, coefs=COEFS, terms=TERMS, horizon: int = HORIZON,
                ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """What the orbit explorer draws: the stored state on 1^k, k = 0..``steps``, of the rotation by φ from (1, 0)
    (columns phi, k and x_<dtype>, y_<dtype> per dtype of ``DTYPES``) and of the real diagonal h_k = a·h_{k−1} + b
    from 0 (columns a, b, k and one per dtype), to 3 decimals; and per orbit and dtype its eventual period within
    ``horizon`` ones (up to ``LONGEST``) with the best readout of k mod 3 (columns transition, phi, a, b, dtype,
    note)."""
    ks = list(range(steps + 1))
    pairs = [(a, b) for a in coefs for b in terms]
    turns = pd.DataFrame({"phi": [p for p in phis for _ in ks], "k": ks * len(phis)})
    lines = pd.DataFrame({"a": [a for a, _ in pairs for _ in ks], "b": [b for _, b in pairs for _ in ks],
                          "k": ks * len(pairs)})
    notes = []
    for dtype, name in DTYPES:
        shown = []
        for phi in phis:
            orbit = _rotation_orbit(phi, horizon, dtype)  # (horizon+1, 2)
            entry, period = eventual_period(orbit.unsqueeze(1), max_period=LONGEST)
            notes.append({"transition": "rotation", "phi": phi, "dtype": name,
                          "note": _note(int(entry[0]), int(period[0]))})
            shown.append(orbit[:steps + 1].float())
        shown = torch.cat(shown)  # (len(phis)·(steps+1), 2)
        turns[f"x_{name}"], turns[f"y_{name}"] = shown[:, 0].round(decimals=3).numpy(), shown[:, 1].round(decimals=3).numpy()
        orbit = diagonal_orbit(torch.tensor([a for a, _ in pairs]), torch.tensor([b for _, b in pairs]),
                               torch.zeros(len(pairs)), horizon, dtype)  # (horizon+1, N)
        entry, period = eventual_period(orbit, max_period=LONGEST)
        notes += [{"transition": "diagonal", "a": a, "b": b, "dtype": name, "note": _note(int(e), int(p))}
                  for (a, b), e, p in zip(pairs, entry, period)]
        lines[name] = orbit[:steps + 1].float().T.reshape(-1).round(decimals=3).numpy()  # (N·(steps+1),) draw by draw
    return turns, lines, pd.DataFrame(notes)


def orbit_explorer(tables: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None = None) -> Explorer:
    """The stored state on 1^k of a 2×2 rotation by φ or a real diagonal (h = a·h + b), in a chosen dtype
    (``orbit_table``, computed when the page is built), with the orbit's eventual period and the best accuracy
    any readout of it reaches on k mod 3, gcd(period, 3)/3. It opens on the rotation by 120°, which counts
    mod 3."""
    turns, lines, notes = orbit_table() if tables is None else tables
    kind = radio("transition", ["rotation", "diagonal"], "rotation", label="transition",
                 labels=["rotation by φ", "real diagonal"])
    phi = slider("phi", min(PHIS), max(PHIS), 5, 120, label="φ (degrees, rotation)")
    a = slider("a", min(COEFS), max(COEFS), 0.1, -0.5, label="a (diagonal)")
    b = slider("b", min(TERMS), max(TERMS), 0.5, 1.0, label="b (diagonal)")
    dtype = radio("dtype", [n for _, n in DTYPES], "fp32", label="stored in", labels=["float32", "bfloat16"])
    near = "abs(datum.{0} - {0}) < 1e-6".format
    on_rotation = f"{kind.name} == 'rotation' && {near(phi.name)}"
    on_diagonal = f"{kind.name} == 'diagonal' && {near(a.name)} && {near(b.name)}"
    x = alt.X("k:Q", title="k (ones read)", scale=alt.Scale(nice=False))
    y = alt.Y("h:Q", title="stored state")
    color = alt.Color("coordinate:N", title="coordinate", scale=alt.Scale(
        domain=["h_k (diagonal)", "h_k[0] (rotation)", "h_k[1] (rotation)"], scheme="dark2"))
    tip = ["coordinate:N", "k:Q", alt.Tooltip("h:Q", format=".3f")]
    turn = alt.Chart(alt.Data(values=turns.to_dict("records"))).transform_filter(on_rotation).transform_calculate(
        first=f"datum['x_' + {dtype.name}]", second=f"datum['y_' + {dtype.name}]").transform_fold(
        ["first", "second"], as_=["coordinate", "h"]).transform_calculate(
        coordinate="datum.coordinate == 'first' ? 'h_k[0] (rotation)' : 'h_k[1] (rotation)'").mark_line(
        point=True).encode(x=x, y=y, color=color, tooltip=tip)
    line = alt.Chart(alt.Data(values=lines.to_dict("records"))).transform_filter(on_diagonal).transform_calculate(
        h=f"datum[{dtype.name}]", coordinate="'h_k (diagonal)'").mark_line(point=True).encode(
        x=x, y=y, color=color, tooltip=tip)
    note = alt.Chart(notes).transform_filter(
        f"((datum.transition == 'rotation' && {on_rotation}) || (datum.transition == 'diagonal' && {on_diagonal}))"
        f" && {picked(dtype, 'dtype')}").mark_text(align="left", x=4, y=-12, fontSize=13).encode(text="note:N")
    chart = alt.layer(turn, line, note).add_params(kind, phi, a, b, dtype).properties(width=WIDTH, height=260)
    return Explorer(chart.configure_axis(labelFontSize=11, titleFontSize=12).configure_legend(
        labelFontSize=11, titleFontSize=12), "orbit explorer")


def count_lengths(records: list[dict], cfg, preset: str) -> Figure:
    """ne2's figure: accuracy by length of every Z3 run (``plotting.accuracy_by_length``, log length), one panel for
    the one-layer bilinear models and one for the Mamba and DeltaNet stacks, one colour per model
    (``claims.ne2.NAMES``); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""
    frame = records_frame(records)
    names = {r["key"]: ne2.NAMES[ne2.model_of(r)] for r in records}
    frame["model"] = frame["key"].map(names)
    frame["stack"] = frame["model"].map(lambda n: "bilinear, one layer" if n.startswith("bilinear")
                                         else "Mamba and DeltaNet stacks")
    return accuracy_by_length(frame, train_max_len=cfg.train.max_len, test_range=(cfg.eval.min_len, cfg.eval.max_len),
                              panel="stack", hue="model", log_x=True,
                              title=f"Z3 (count mod 3), preset {preset}: accuracy by length")


__all__ = ["count_lengths", "cycle_table", "orbit_explorer", "orbit_periods", "orbit_summary", "orbit_table",
           "orbit_values", "orbits", "run_scores", "statement_values"]
