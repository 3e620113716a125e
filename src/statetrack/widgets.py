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

    Shows the first ``steps`` states, the orbit's eventual period (looked for up to k = 5,000) and the
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
            entry, period = eventual_period(orbit(5_000), max_period=360)
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
                         "no period up to 360 by k = 5,000", fontsize=10)
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


def fsm_explorer(table: torch.Tensor, word: str = "0 1 2 3 1 0 2 2 3 1") -> widgets.Widget:
    """Live (bl1): type a word; see the hand-built bilinear state h_t beside the machine's true state.

    Args:
        table: (m, k) next-state table of the machine (``tasks.fsm``), letters 0..k−1.
        word: the initial word, letters separated by spaces.
    """
    from statetrack.tasks.fsm import walk
    from statetrack.theory.fsm_simulation import fsm_bilinear

    m, k = table.shape
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="520px"))
    norm = widgets.ToggleButtons(options=[("normalize every step", "every_step"), ("no normalization", "none")],
                                 description="state")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                letters = [int(a) for a in text.value.split()]
                if not letters or min(letters) < 0 or max(letters) >= k:
                    raise ValueError
            except ValueError:
                print(f"type letters 0..{k - 1} separated by spaces")
                return
            tokens = torch.tensor([letters])  # (1, T)
            model = fsm_bilinear(table, normalize=norm.value)
            with torch.no_grad():
                h = model.states(tokens)[0]  # (T, H)
            truth = walk(table, tokens)[0]  # (T,)
            fig, ax = plt.subplots(figsize=(7, 3))
            ax.imshow(h.T.numpy(), aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower")
            ax.plot(range(len(letters)), truth.tolist(), "o", mfc="none", mec="#C44E52")
            ax.set_xlabel("step t")
            ax.set_ylabel("state q")
            ax.set_title(f"h_t (black = 1) vs true state (red); argmax == truth at every step: "
                         f"{bool((h.argmax(-1) == truth).all())}", fontsize=9)
            plt.show()

    text.observe(draw, "value")
    norm.observe(draw, "value")
    draw()
    return widgets.VBox([text, norm, out])


def frozen_explorer(H: int = 8, seed: int = 0, word: str = "0 1 1 0 1 1") -> widgets.Widget:
    """Live (bl8): draw a frozen random diagonal network, fit the readout on '00', '01', classify a typed word.

    Shows each unit's two weights, its type (A: flips with every 1, B: with every 0, -: never) and
    sign(h_T) for the word, and the readout's answer beside the true parity.
    """
    from statetrack.theory.frozen_diagonal import draw_weights, features, fit_readout, log_state, predict

    size = widgets.IntSlider(value=H, min=1, max=32, description="H")
    draw_seed = widgets.IntSlider(value=seed, min=0, max=99, description="draw")
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="520px"))
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                bits = [int(b) for b in text.value.split()]
                if not bits or set(bits) - {0, 1}:
                    raise ValueError
            except ValueError:
                print("type bits 0 or 1 separated by spaces")
                return
            w = draw_weights(1, size.value, seed=draw_seed.value)  # (1, 2, H)
            train = torch.tensor([[0, 0], [0, 1]])  # '00' -> even, '01' -> odd
            weights, bias = fit_readout(features(*log_state(w, train), "sign"), torch.tensor([0, 1]))
            x = features(*log_state(w, torch.tensor([bits])), "sign")  # (1, 1, H)
            answer = int(predict(x, weights, bias)[0, 0])
            kinds = ["A" if a > 0 > b else "B" if a < 0 < b else "-" for a, b in zip(w[0, 0], w[0, 1])]
            print("unit  w_0     w_1     type  sign(h_T)")
            for i, kind in enumerate(kinds):
                print(f"{i:>4}  {float(w[0, 0, i]):+.2f}   {float(w[0, 1, i]):+.2f}    {kind}     "
                      f"{int(x[0, 0, i]):+d}")
            print(f"readout says: {'odd' if answer else 'even'};  true parity: {'odd' if sum(bits) % 2 else 'even'}"
                  f"  (length {len(bits)}: the proof needs an even length for training words of length 2)")

    for wdg in (size, draw_seed, text):
        wdg.observe(draw, "value")
    draw()
    return widgets.VBox([widgets.HBox([size, draw_seed]), text, out])


__all__ += ["fsm_explorer", "frozen_explorer"]


def swap_explorer(word: str = "01 12 01 34") -> widgets.Widget:
    """Live: type a word of S5 swaps; see the hand-set DeltaNet's answer and state beside the true product.

    Swaps are written as two digits ("01" is the swap of points 0 and 1, "-" the identity). The
    network is ``theory.householder.swap_tracker`` (NE Thm 3), run with the model's own ``step`` from
    S_0 = I. The initial word (0 1)(1 2)(0 1) = (0 2) then (3 4): a 3-cycle's conjugate and a swap.

    Used in: ne3.
    """
    from IPython.display import display

    from statetrack.theory.householder import permutation_matrix, swap_tracker

    tr = swap_tracker()
    perms, table = tr.task.permutations, tr.task.mul_table
    by_pair = {}
    for e in tr.task.elements_drawn.tolist():
        moved = [i for i in range(5) if perms[e][i] != i]
        by_pair["".join(map(str, moved)) if moved else "-"] = e
    text = widgets.Text(value=word, description="word", placeholder="e.g. 01 12 - 34")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            keys = [w if w == "-" else "".join(sorted(w)) for w in text.value.replace(",", " ").split()]
            if not keys or len(keys) > 30 or any(k not in by_pair for k in keys):
                print("type 1 to 30 swaps such as 01 24 or - (identity), separated by spaces")
                return
            state, product, rows = tr.init_state(1), 0, []
            with torch.no_grad():
                for t, k in enumerate(keys, 1):
                    e = by_pair[k]
                    logits, state = tr.model.step(torch.tensor([e]), state)
                    product = int(table[product, e])
                    answer = int(logits.argmax())
                    S = state[0][0][0, 0]  # (5, 5) head 0's state (all working heads hold the same)
                    err = float((S - permutation_matrix(perms[product], torch.float32)).abs().max())
                    rows.append({"t": t, "token": k, "true product": perms[product], "network": perms[answer],
                                 "right": answer == product, "max |S − M|": f"{err:.1e}"})
            display(pd.DataFrame(rows).set_index("t"))
            print("state S_t of a working head (rounded) and the true permutation matrix M(product):")
            display(pd.concat({"network S_t": pd.DataFrame(S.numpy().round(3)),
                               "M(product)": pd.DataFrame(permutation_matrix(perms[product]).numpy().astype(int))},
                              axis=1))

    text.observe(draw, "value")
    draw()
    return widgets.VBox([text, out])


def gh_pair_explorer() -> widgets.Widget:
    """Live: two GH factors in the plane, I − β_j v_j v_jᵀ with an angle φ between v_1 and v_2; see their
    product's eigenvalues against the unit circle. β ∈ [0, 1] keeps them real in [0, 1] (NE Prop. 1.3);
    two reflections (β = 2) rotate by 2φ.

    Used in: ne3.
    """
    import math

    from statetrack.theory.householder import gh_product

    b1 = widgets.FloatSlider(value=2.0, min=0.0, max=2.0, step=0.05, description="β₁")
    b2 = widgets.FloatSlider(value=2.0, min=0.0, max=2.0, step=0.05, description="β₂")
    phi = widgets.FloatSlider(value=60.0, min=0.0, max=180.0, step=5.0, description="φ (deg)")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            a = math.radians(phi.value)
            keys = torch.tensor([[[1.0, 0.0], [math.cos(a), math.sin(a)]]], dtype=torch.float64)  # (1, 2, 2)
            A = gh_product(keys, torch.tensor([[b1.value, b2.value]], dtype=torch.float64))[0]  # (2, 2)
            ev = torch.linalg.eigvals(A)  # (2,)
            t = torch.linspace(0, 2 * math.pi, 300)
            fig, ax = plt.subplots(figsize=(3.6, 3.6))
            ax.plot(torch.cos(t), torch.sin(t), color="0.6", lw=0.8)
            ax.plot([0, 1], [0, 0], color="#4C72B0", lw=3, alpha=0.35)
            ax.scatter(ev.real, ev.imag, color="#C44E52", zorder=3)
            ax.set_aspect("equal")
            ax.set_xlim(-1.2, 1.2)
            ax.set_ylim(-1.2, 1.2)
            kind = "real" if float(ev.imag.abs().max()) < 1e-9 else "complex: a rotation-like pair"
            ax.set_title(f"λ = {complex(ev[0]):.2f}, {complex(ev[1]):.2f}\n({kind})", fontsize=9)
            plt.show()

    for w in (b1, b2, phi):
        w.observe(draw, "value")
    draw()
    return widgets.VBox([widgets.HBox([b1, b2, phi]), out])


__all__ += ["swap_explorer", "gh_pair_explorer"]


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
    from statetrack.claims import PRESETS, holders
    from statetrack.results import load_records, tidy

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
    from statetrack.plotting import _style

    _style()
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
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
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


__all__ += ["results_frame", "results_figure", "results_explorer", "first_selection"]


def spectrum_explorer(eig: pd.DataFrame) -> widgets.Widget:
    """Pick a trained run (model, task, seed) and the tokens to show; see its learned spectrum on the complex plane.

    Args:
        eig: ``claims.x2.eigen_frame`` rows of every run, concatenated.
    Used in: x2.
    """
    from statetrack.figures.spectra import spectrum_panel
    from statetrack.plotting import _style

    runs = eig[["panel", "seed"]].drop_duplicates()
    pick = widgets.Dropdown(options=[(f"{r.panel}, seed {r.seed}", (r.panel, r.seed)) for r in runs.itertuples()],
                            description="run", layout=widgets.Layout(width="420px"))
    only = widgets.ToggleButtons(options=[("all eigenvalues", False), ("leading only", True)], description="show")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            panel, seed = pick.value
            sub = eig[(eig["panel"] == panel) & (eig["seed"] == seed)]
            if only.value:
                sub = sub[sub["leading"] | sub["flip"]]
            _style()
            fig, ax = plt.subplots(figsize=(4.4, 4.9))
            spectrum_panel(ax, sub, panel)
            fig.tight_layout()
            plt.show()
            plt.close(fig)

    pick.observe(draw, "value")
    only.observe(draw, "value")
    draw()
    return widgets.VBox([pick, only, out])


__all__ += ["spectrum_explorer"]
