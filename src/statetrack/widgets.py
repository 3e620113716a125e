"""ipywidgets explorers over recorded results and small live computations.

Each returns a widget; a page must not depend on it (the static figure comes first), because a
rendered book has no kernel: the embedded widget shows its initial state only.

Used in: ne1.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch

from statetrack.plotting import display_name


def run_explorer(frame: pd.DataFrame, train_max_len: int) -> widgets.Widget:
    """Pick a recorded run (model, eigenvalue range, seed) and a metric; see its accuracy by length."""
    runs = frame.drop_duplicates("key")
    options = [(f"{display_name(r.model, r.eig_range)}, seed {r.seed}", r.key) for r in runs.itertuples()]
    pick = widgets.Dropdown(options=options, description="run")
    metric = widgets.ToggleButtons(options=[("normalized", "normalized"), ("accuracy", "acc"),
                                            ("sequence acc.", "seq_acc")], description="metric")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            run = frame[frame["key"] == pick.value]
            fig, ax = plt.subplots(figsize=(6, 3))
            ax.plot(run["length"], run[metric.value], lw=1.5)
            ax.axvline(train_max_len, color="0.4", ls="--", lw=0.8)
            ax.set_xlabel("sequence length")
            ax.set_ylabel(metric.label)
            ax.set_ylim(-0.15, 1.05)
            plt.show()

    pick.observe(draw, "value")
    metric.observe(draw, "value")
    draw()
    return widgets.VBox([pick, metric, out])


def scalar_explorer(steps: int = 60) -> widgets.Widget:
    """Live: h_k = a·h_{k−1} + 1 stored in a chosen dtype; see whether it freezes or keeps alternating."""
    from statetrack.theory.finite_precision import freeze_step, scalar_recurrence

    a = widgets.FloatSlider(value=0.5, min=-1.0, max=1.0, step=0.05, description="a")
    dtype = widgets.Dropdown(options=[("bfloat16", torch.bfloat16), ("float16", torch.float16),
                                      ("float32", torch.float32)], description="dtype")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            h = scalar_recurrence([a.value], steps, dtype.value)[:, 0].float()  # (K,)
            frozen = freeze_step(scalar_recurrence([a.value], 20_000, dtype.value))[0]
            fig, ax = plt.subplots(figsize=(6, 2.8))
            ax.plot(range(1, steps + 1), h.tolist(), marker=".", lw=1)
            ax.set_xlabel("k")
            ax.set_ylabel("$h_k$")
            ax.set_title("frozen from k = %s" % frozen if frozen else "still changing after 20,000 steps")
            plt.show()

    a.observe(draw, "value")
    dtype.observe(draw, "value")
    draw()
    return widgets.VBox([widgets.HBox([a, dtype]), out])


def orbit_explorer(steps: int = 36) -> widgets.Widget:
    """Live: the stored state on 1^k of a real diagonal (h = a·h + b) or a 2×2 rotation by φ, in a chosen dtype.

    Shows the first ``steps`` states, the orbit's eventual period (looked for up to k = 20,000) and the
    best accuracy any readout of it can reach on k mod 3, gcd(period, 3)/3. The initial state, a
    rotation by 120°, is the one that counts mod 3.

    Used in: ne2.
    """
    import math

    from statetrack.theory.rotations import (best_readout_accuracy, diagonal_orbit, eventual_period, rotation)

    kind = widgets.ToggleButtons(options=["rotation by φ", "real diagonal"], value="rotation by φ",
                                 description="transition")
    phi = widgets.FloatSlider(value=120.0, min=0.0, max=180.0, step=5.0, description="φ (degrees)")
    a = widgets.FloatSlider(value=-0.5, min=-1.0, max=1.0, step=0.05, description="a")
    b = widgets.FloatSlider(value=1.0, min=-1.0, max=1.0, step=0.25, description="b")
    dtype = widgets.Dropdown(options=[("float32", torch.float32), ("bfloat16", torch.bfloat16)], description="dtype")
    out = widgets.Output()

    def orbit(n):
        if kind.value == "real diagonal":
            return diagonal_orbit(torch.tensor([a.value]), torch.tensor([b.value]), torch.tensor([0.0]), n,
                                  dtype.value)  # (n+1, 1)
        R = rotation(math.radians(phi.value), dtype.value)  # (2, 2)
        h = torch.tensor([1.0, 0.0], dtype=dtype.value)
        rows = [h]
        for _ in range(n):
            h = R @ h
            rows.append(h)
        return torch.stack(rows).unsqueeze(1)  # (n+1, 1, 2)

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            states = orbit(steps).float()
            entry, period = eventual_period(orbit(20_000), max_period=360)
            p = int(period[0])
            fig, ax = plt.subplots(figsize=(6.4, 2.8))
            ks = range(steps + 1)
            if states.dim() == 3:  # rotation: the state's two coordinates
                ax.plot(ks, states[:, 0, 0].tolist(), marker=".", lw=1, label="$h_k[0]$")
                ax.plot(ks, states[:, 0, 1].tolist(), marker=".", lw=1, label="$h_k[1]$")
                ax.legend(fontsize=8, loc="upper right")
            else:
                ax.plot(ks, states[:, 0].tolist(), marker=".", lw=1)
            ax.set_xlabel("k (ones read)")
            ax.set_ylabel("stored state")
            ax.set_title(f"period {p} from k = {int(entry[0])}: best readout of k mod 3 = "
                         f"{best_readout_accuracy(p, 3):.2f}" if p > 0 else
                         "no period up to 360 by k = 20,000", fontsize=10)
            plt.show()

    def show_controls(*_):
        phi.layout.display = "none" if kind.value == "real diagonal" else None
        a.layout.display = b.layout.display = None if kind.value == "real diagonal" else "none"

    for w in (kind, phi, a, b, dtype):
        w.observe(draw, "value")
    kind.observe(show_controls, "value")
    show_controls()
    draw()
    return widgets.VBox([kind, widgets.HBox([phi, a, b]), dtype, out])


def word_explorer(word: str = "1 2") -> widgets.Widget:
    """Live: type an S3 word (element ids 0–5); see the true running product beside what token counts allow.

    For every prefix: the true product (the task's table), the counts a commuting model's state holds,
    the best count-only guess and its chance of being right. The initial word "1 2" has the same
    counts as "2 1" but another product, so a commuting model must miss one of the two.

    Used in: bl7.
    """
    from IPython.display import display

    from statetrack.tasks import make_task, task_config
    from statetrack.theory.commuting import product_distribution

    task = make_task(task_config("word_problem", group="S3"))
    table, perms = task.mul_table, task.permutations
    text = widgets.Text(value=word, description="word", placeholder="ids 0-5, e.g. 1 2 5")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                ids = [int(t) for t in text.value.replace(",", " ").split()]
                if not ids or any(not 0 <= i < 6 for i in ids) or len(ids) > 12:
                    raise ValueError
            except ValueError:
                print("type 1 to 12 element ids between 0 and 5, separated by spaces")
                return
            rows, product, counts = [], 0, [0] * 6
            for t, x in enumerate(ids, 1):
                product, counts[x] = int(table[product, x]), counts[x] + 1
                dist = product_distribution(table, counts)  # (6,)
                guess = int(dist.argmax())
                rows.append({"L": t, "token": f"{x} {perms[x]}", "true product": f"{product} {perms[product]}",
                             "counts": " ".join(map(str, counts)), "best count-only guess": f"{guess} {perms[guess]}",
                             "P(guess right)": round(float(dist.max()), 3), "right here": guess == product})
            rev = 0
            for x in reversed(ids):
                rev = int(table[rev, x])
            display(pd.DataFrame(rows).set_index("L"))
            print(f"reversed word: same counts, product {rev} {perms[rev]}"
                  + (" (the same)" if rev == product else " (different: a commuting model answers both alike)"))

    text.observe(draw, "value")
    draw()
    return widgets.VBox([text, out])


__all__ = ["run_explorer", "scalar_explorer"]
__all__ += ["orbit_explorer", "word_explorer"]
