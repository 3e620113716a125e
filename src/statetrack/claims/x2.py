"""Claim x2 (both papers): the spectra trained models actually learn sit where the theorems say they must.

The theorems say what a *solution* needs; x2 opens trained models and reads their transition
matrices (``statetrack.spectra``, the first layer's A(x) per token):

- **Parity** (NE Thm 1, Thm 3 with A ∈ {−1, 1}): a model that solves parity needs a state direction
  that token "1" reflects (eigenvalue −1) and token "0" keeps (+1). Read from Mamba [−1,1] (diagonal:
  one candidate direction per channel) and DeltaNet [−1,1] (generalized Householder: per head, the
  "1" key), ``spectra.flip_direction``.
- **Z_m** (NE Thm 2–3, BL Prop 2): a bilinear model that solves addition mod m represents each
  token v by a rotation-like matrix; its leading eigenvalues (modulus within 10% of the spectral
  radius) lie at m-th roots of unity e^{2πij/m}, and token "1" has a primitive one (gcd(j, m) = 1), a
  generator of Z_m. Read from the rotation variant (2×2 blocks) on Z_5 and Z_3 and the full variant
  on Z_5.

The runs are the very configurations other claims record (ne1's [−1,1] parity models, bl7's Z_5
rotation and full models, ne2's Z_3 rotation model, at the same preset and seeds), retrained here
with their weights kept (``KEEP_WEIGHTS``: ``results.checkpoint_path`` beside each record, loaded with
``torch.load(weights_only=True)``). Training is deterministic given the run key, so each x2 record
carries the accuracy of the other claim's record of the same key.

Verdict rule (computed, one check per model and task): over the seeds that *solve* the task (normalized
test accuracy ≥ 0.9; the theorems constrain solutions, not failed runs),

| family | measured (worst over solving seeds)                                      | rule          |
|--------|---------------------------------------------------------------------------|---------------|
| parity | score = max(|λ_"1" + 1|, |uᵀA("0")u − 1|) of the best flip direction u     | ≤ 0.1         |
| Z_m    | angular distance of every leading eigenvalue of every token's A(v) to the nearest multiple of 2π/m, in units of 2π/m | ≤ 1/4, and token 1 has a primitive root |

A check with no solving seed fails: there is no learned solution to read. The trained runs are
shown, not judged (x1 and the source claims judge accuracy).

| preset | runs (from)                                                                               | seeds |
|--------|-------------------------------------------------------------------------------------------|-------|
| smoke  | ne1 smoke Mamba/DeltaNet [−1,1]; bl7 smoke Z5 rotation/full; ne2 smoke Z3 rotation         | 1     |
| quick  | ne1 quick Mamba/DeltaNet [−1,1] (D=32); bl7 quick Z5 rotation H=2, full H=32; ne2 Z3 rotation H=2 | 3 |
| paper  | the same claims' paper grids (learning-rate sweeps included)                              | 3–5   |

Used in: notebooks/x2_eigenvalue_explorer.md, ``statetrack verify``.
"""

from __future__ import annotations

import math
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import Check, check_seeds, judge
from statetrack.config import RunConfig

ID = "x2"
KEEP_WEIGHTS = True  # claims.run_claim keeps each run's weights beside its record
SOLVED = 0.9  # normalized test accuracy from which a run counts as a solution whose spectrum is judged
FLIP_TOL = 0.1  # parity: |λ("1") + 1| and |uᵀA("0")u − 1|
ANGLE_TOL = 0.25  # Z_m: distance to the nearest multiple of 2π/m, in units of 2π/m (= 2π/(4m) radians)
LEADING = 0.9  # an eigenvalue leads when its modulus is ≥ 0.9 × the spectral radius
NAMES = {"mamba": "Mamba [-1,1]", "deltanet": "DeltaNet [-1,1]", "rotation": "bilinear rotation",
         "full": "bilinear full"}


def grid(preset: str, seeds: list[int] | None = None) -> list[RunConfig]:
    """x2's runs at ``preset``: the source claims' configurations (see the module docstring), × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: each source claim's seeds at the preset).
    """
    from statetrack.claims import bl7, ne1, ne2

    check_preset(preset)
    if seeds is not None:
        seeds = check_seeds(seeds, ())
    out = [c for c in ne1.grid(preset, seeds=seeds) if c.model.eig_range == "[-1,1]"]
    out += [c for c in bl7.grid(preset, seeds=seeds, models=["rotation", "full"]) if c.task.name == "modular_addition"]
    out += ne2.grid(preset, seeds=seeds, models=["rotation"])
    return out


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """A record's cell: the task ("parity" or "Z<m>") and the model's short name."""
    cfg = record["config"]
    m, t = cfg["model"], cfg["task"]
    task = "parity" if t["name"] == "parity" else f"Z{t['modulus']}"
    return {"task": task, "model": NAMES.get(m.get("variant") or m["name"], m["name"])}


def label(cell: dict[str, Any]) -> str:
    return f"{cell['model']} {cell['task']}"


def analyse(record: dict[str, Any], model=None) -> dict[str, Any]:
    """The spectral reading of one run (its weights from the checkpoint beside its record, or ``model``).

    Returns a dict with the cell, seed, ``score`` (the test accuracy, normalized), ``solved``, and for
    parity ``flip``, ``hold``, ``group``, ``spectral`` (the flip score); for Z_m ``m``, ``spectral``
    (the worst leading angle distance in units of 2π/m), ``generator`` (token 1 has a primitive
    leading root), ``j1`` (token 1's leading multiples j). ``error`` names a missing checkpoint.
    """
    import torch

    from statetrack import spectra as sp
    from statetrack.results import RecordError
    from statetrack.runs import checkpoint_path, load_model

    cfg = RunConfig.from_dict(record["config"])
    score = record["summary"]["ood_normalized"] if record["status"] == "ok" else float("nan")
    out = {**cell_of(record), "seed": cfg.seed, "lr": cfg.train.lr, "key": record["key"], "score": score,
           "solved": bool(score >= SOLVED), "spectral": float("nan"), "error": ""}
    if record["status"] != "ok":
        out["error"] = f"run {record['status']}"
        return out
    if model is None:
        try:
            model = load_model(record, checkpoint_path(cfg))
        except RecordError as e:
            out["error"] = str(e)
            return out
    if cfg.task.name == "parity":
        tr = sp.transitions(model, sp.all_windows(model, range(2)))
        f = sp.flip_direction(tr)
        out.update(flip=f.flip, hold=f.hold, group=f.group, spectral=f.score)
        return out
    m = cfg.task.modulus
    tr = sp.transitions(model, torch.arange(m).unsqueeze(1))  # (m, 1): every number token, no padding
    lam = sp.eigenvalues(tr).flatten(1)  # (m, G·n) the whole block-diagonal matrix's eigenvalues
    lead = sp.leading(lam, LEADING)  # (m, G·n)
    j, dist = sp.angle_to_roots(lam, m)  # (m, G·n) each
    worst = float((dist[lead] / (2 * math.pi / m)).max())
    j1 = sorted(set(j[1][lead[1]].tolist()))
    out.update(m=m, spectral=worst, generator=any(math.gcd(x, m) == 1 for x in j1), j1=j1)
    return out


def checks(records: list[dict[str, Any]], readings: list[dict[str, Any]] | None = None) -> list[Check]:
    """One spectral check per cell (see the module docstring); ``readings`` reuses ``analyse``'s output."""
    readings = readings if readings is not None else [analyse(r) for r in records]
    cells: dict[tuple, list[dict[str, Any]]] = {}
    for a in readings:
        cells.setdefault((a["task"], a["model"]), []).append(a)
    out = []
    for (task, model), runs in cells.items():
        solved = [a for a in runs if a["solved"] and not a["error"]]
        skipped = [f"s{a['seed']}: " + (a["error"] or "not solved ({:.2f})".format(a["score"])) for a in runs
                   if not (a["solved"] and not a["error"])]
        if task == "parity":
            rule = f"flip score <= {FLIP_TOL:g}"
            parts = [f"s{a['seed']}: λ(1) = {a['flip']:+.3f}, uᵀA(0)u = {a['hold']:.3f}" for a in solved]
            ok = bool(solved) and all(a["spectral"] <= FLIP_TOL for a in solved)
        else:
            rule = f"angles within {ANGLE_TOL:g}·2π/m; token 1 primitive"
            parts = [f"s{a['seed']}: {a['spectral']:.3f}, token 1 at j = {a['j1']}" for a in solved]
            ok = bool(solved) and all(a["spectral"] <= ANGLE_TOL and a["generator"] for a in solved)
        value = max((a["spectral"] for a in solved), default=float("nan"))
        detail = "; ".join(parts + [f"not judged: {s}" for s in skipped]) or "no run"
        out.append(Check(f"{model} {task}: learned spectrum", value, rule, ok, detail, part="comparison"))
    return out


_spectral_checks = checks  # ``verdict``'s argument is also called ``checks``


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """Apply the x2 rule: every cell's spectral check holds (computed from the weights when not given)."""
    spectral = _spectral_checks(records) if checks is None else checks
    return judge(ID, preset, records, cell_of=cell_of, rule_of=lambda c: None, label_of=label, checks=spectral,
                 legend=f"(solving runs: parity flip score <= {FLIP_TOL:g}; Z_m leading angles within "
                        f"{ANGLE_TOL:g}·2π/m of a root of unity)")


def eigen_frame(record: dict[str, Any], model=None) -> Any:
    """Every eigenvalue of one run's per-token transitions, as a tidy frame (the figures' input).

    Columns: panel (``label`` of the cell), seed, token (the window's last token, as text), re, im,
    scaled_re, scaled_im (λ over its matrix's spectral radius: with the state normalized every step only
    this ratio matters; equal to re, im for the parity models, whose radius is ≤ 1 anyway and which are
    drawn unscaled), leading (modulus ≥ ``LEADING`` × radius), flip (parity: the eigenvalue of the flip
    direction found by ``spectra.flip_direction``).
    """
    import pandas as pd
    import torch

    from statetrack import spectra as sp
    from statetrack.runs import checkpoint_path, load_model

    cfg = RunConfig.from_dict(record["config"])
    model = model if model is not None else load_model(record, checkpoint_path(cfg))
    parity = cfg.task.name == "parity"
    windows = sp.all_windows(model, range(2)) if parity else torch.arange(cfg.task.modulus).unsqueeze(1)
    tr = sp.transitions(model, windows)
    lam = sp.eigenvalues(tr)  # (W, G, n)
    flat = lam.flatten(1)  # (W, G·n)
    rho = flat.abs().amax(-1, keepdim=True)  # (W, 1)
    scaled = flat if parity else flat / rho  # (W, G·n)
    lead = sp.leading(flat, LEADING)  # (W, G·n)
    flip = torch.zeros_like(lead)
    if parity:
        g = sp.flip_direction(tr).group
        n = lam.shape[-1]
        near = (lam[:, g] + 1).abs().argmin(-1)  # (W,) the flip direction's eigenvalue in block g
        for w in range(len(windows)):
            # on "0" a 1×1 block's eigenvalue is the hold value itself; in a wider block (a DeltaNet head)
            # the hold value uᵀA(0)u is no eigenvalue, so only the "1" windows are marked
            if int(tr.last_token[w]) == 1 or n == 1:
                flip[w, g * n + int(near[w]) * (int(tr.last_token[w]) == 1)] = True
    cell = cell_of(record)
    rows = []
    for w in range(len(windows)):
        for i in range(flat.shape[1]):
            rows.append({"panel": label(cell), "seed": cfg.seed, "token": str(int(tr.last_token[w])),
                         "re": float(flat[w, i].real), "im": float(flat[w, i].imag),
                         "scaled_re": float(scaled[w, i].real), "scaled_im": float(scaled[w, i].imag),
                         "leading": bool(lead[w, i]), "flip": bool(flip[w, i])})
    return pd.DataFrame(rows)


def init_contrast(preset: str) -> list[dict[str, Any]]:
    """The same readings on *untrained* models (each cell's first config, its seed's initialization):
    does the rule pass before any training? It should not, or the rule would say nothing."""
    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.training import seed_everything

    seen, out = set(), []
    for cfg in grid(preset):
        fake = {"key": "init", "status": "ok", "config": cfg.to_dict(), "summary": {"ood_normalized": 1.0}}
        cell = cell_of(fake)
        if (cell["task"], cell["model"]) in seen:
            continue
        seen.add((cell["task"], cell["model"]))
        task = make_task(cfg.task)
        seed_everything(cfg.seed)  # the initialization the trained run started from
        a = analyse(fake, make_model(cfg.model, task.vocab_size, task.num_classes))
        passes = a["spectral"] <= (FLIP_TOL if cell["task"] == "parity" else ANGLE_TOL) and a.get("generator", True)
        out.append({"what": label(cell), "seed": cfg.seed, "spectral": a["spectral"],
                    **({"flip": a["flip"], "hold": a["hold"]} if "flip" in a else {"j1": a["j1"]}),
                    "rule passes untrained": bool(passes)})
    return out


def rotation_turns(record: dict[str, Any], model=None) -> list[dict[str, Any]]:
    """A rotation model's signed angle θ_v per number token (first 2×2 block), in units of 2π/m, in [−½, m − ½).

    The eigenvalues of R(θ) are e^{±iθ}, the same set for θ and −θ: a spectrum cannot tell a token
    that turns forward from one that turns back. The signed angles can; a model that solves Z_m needs
    θ_v ≡ v·θ_1 (mod 2π), a homomorphism Z_m → SO(2).
    """
    from statetrack.runs import checkpoint_path, load_model

    cfg = RunConfig.from_dict(record["config"])
    model = model if model is not None else load_model(record, checkpoint_path(cfg))
    m = cfg.task.modulus
    theta = model.tables()[0][:m, 0].detach().double()  # (m,) first block's angle per number token
    turns = (theta / (2 * math.pi / m) + 0.5) % m - 0.5  # in [−0.5, m − 0.5): a root j sits at j, never at m
    score = record["summary"]["ood_normalized"] if record["status"] == "ok" else float("nan")
    return [{"panel": label(cell_of(record)), "seed": cfg.seed, "token": v, "turns": float(turns[v]), "m": m,
             "score": score} for v in range(m)]
