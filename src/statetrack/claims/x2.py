"""Claim x2 (both papers): the spectra trained models actually learn sit where the theorems say a solution's must.

The theorems speak of *solutions*: a model that tracks the task at every length. x2 opens trained
models and reads their transition matrices (``statetrack.spectra``, the first layer's A(x) per token),
and judges the spectra of the runs that are **exact solutions** on our test set: accuracy 1 at every
test length, within rounding (``exact``; normalized test accuracy ≥ 1 − ``ROUNDING``). Every other run is
shown and left out (a statement with no exact solution is not judged). The runs are the very
configurations other claims record (ne1's [−1,1] parity models, bl7's Z_5 rotation and full models,
ne2's Z_3 rotation model, at the same preset and seeds), retrained here with their weights kept
(``KEEP_WEIGHTS``: ``results.checkpoint_path`` beside each record, loaded with
``torch.load(weights_only=True)``).

What an exact solution on random test words up to the longest test length L needs, in fp32 (unit
roundoff ε = 2⁻²⁴, the arithmetic of our runs):

- **Parity** (NE Thm 1: an eigenvalue outside [0, ∞); NE Thm 3's construction A("1") = −1, A("0") = +1).
  The answer at L depends on the first bit, so the direction carrying it must keep that bit through
  the other L − 1 letters: a part |λ₁|^{#1} · |uᵀA("0")u|^{#0} of it survives, about (|λ₁| |uᵀA("0")u|)^{L/2}
  on a random word, and below ε of the state it is lost to rounding. With the flip direction of
  ``spectra.flip_direction`` (the eigenvalue λ₁ of A("1") nearest −1 and uᵀA("0")u along its
  eigenvector u, worst over the convolution's contexts): max(|λ₁ + 1|, |uᵀA("0")u − 1|) ≤ 1 − ε^(2/L).
- **Z_m** (NE Thm 2: a non-real eigenvalue; NE Thm 3: rotations by multiples of 2π/m). With the state
  normalized every step, an eigen-direction with |λ| < ε^(1/L) ρ (ρ the spectral radius) is below fp32
  resolution after L steps; the others *lead*. Token 1 must move the answer through all m values, so one
  of its leading eigenvalues is a primitive m-th root of unity (gcd(j, m) = 1; for prime m this is NE
  Thm 2's non-real eigenvalue). A rotation model (one 2×2 block) whose token v turns θ_v = 2π(j_v + δ_v)/m
  drifts by about L·δ̄ (δ̄ the mean of δ_v over the tokens) on a random word of L tokens, and half a unit
  moves the answer: |δ̄| ≤ 1/(2L). (A dense matrix's eigenvalues come in conjugate pairs whose signed
  errors cancel, so the full model's drift is not read.)

These are our readings of the theorems (no paper opens a trained model): every statement is ours.

Statements (``statements``; kind ``impossible``: every exact solution must obey; a run that is not one
reads NaN and is left out with the diverged runs, and a statement with none is not run):

| id                          | cells                            | metric (``analyse``)  | rule                   |
|-----------------------------|----------------------------------|-----------------------|------------------------|
| mamba-flip, deltanet-flip   | Mamba / DeltaNet [−1,1] parity   | ``flip_score``        | ≤ 1 − ε^(2/L), L = 255 |
| <cell>-generator            | rotation Z5, full Z5, rotation Z3 | ``generator`` (1 or 0) | ≥ 1                   |
| rotation-Z5-drift, rotation-Z3-drift | rotation Z5, Z3         | ``drift``             | ≤ 1/(2L), L = 500      |
| reads-constructions         | exact: NE Thm 3's parity automaton, rotations by 2πv/m and the regular representation of Z_5 in a full model read as exact solutions; a [0,1] channel and a drifting rotation do not | | every check holds |

L is the shortest of the longest test lengths at the presets that judge the statement (quick 256,
paper 255 for parity; 500 for Z_m): the loosest bound of the two.

| preset | runs (from)                                                                               | seeds |
|--------|-------------------------------------------------------------------------------------------|-------|
| smoke  | ne1 smoke Mamba/DeltaNet [−1,1]; bl7 smoke Z5 rotation/full; ne2 smoke Z3 rotation         | 1     |
| quick  | ne1 quick Mamba/DeltaNet [−1,1] (D=32); bl7 quick Z5 rotation H=2, full H=32; ne2 Z3 rotation H=2 | 3 |
| paper  | the same claims' paper grids (learning-rate sweeps included)                              | 3–5   |

Used in: notebooks/x2_eigenvalue_explorer.md, ``statetrack verify``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (TRAINED_PRESETS, Check, Statement, at_least, at_most, check_seeds, decide,
                                      exact_checks, with_metric)
from statetrack.config import RunConfig

ID = "x2"
KEEP_WEIGHTS = True  # claims.run_claim keeps each run's weights beside its record
ROUNDING = 1e-9  # an exact solution: normalized test accuracy 1 within this (every test length all correct)
EPS = 2.0 ** -24  # fp32 unit roundoff: the arithmetic our runs train and test in
METRICS = ("flip_score", "drift", "generator")
NAMES = {"mamba": "Mamba [-1,1]", "deltanet": "DeltaNet [-1,1]", "rotation": "bilinear rotation",
         "full": "bilinear full"}
HEADLINE = "mamba-flip"  # the scoreboard's statement
_CELLS = (("parity", "Mamba [-1,1]", "mamba"), ("parity", "DeltaNet [-1,1]", "deltanet"),
          ("Z5", "bilinear rotation", "rotation-Z5"), ("Z5", "bilinear full", "full-Z5"),
          ("Z3", "bilinear rotation", "rotation-Z3"))  # (task, model, statement prefix)


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


def exact(record: dict[str, Any]) -> bool:
    """Whether a run is an exact solution on its test set: every test length all correct, within rounding."""
    return record["status"] == "ok" and record["summary"]["ood_normalized"] >= 1 - ROUNDING


def flip_bound(length: int) -> float:
    """The largest flip score of an exact parity solution on random words up to ``length`` in fp32: 1 − ε^(2/length)."""
    return 1 - EPS ** (2 / length)


def leading_fraction(length: int) -> float:
    """|λ| / ρ below which an eigen-direction falls under fp32 resolution within ``length`` steps: ε^(1/length)."""
    return EPS ** (1 / length)


def drift_bound(length: int) -> float:
    """The largest mean angle error (units of 2π/m) per token of an exact rotation solution up to ``length``:
    1/(2·length)."""
    return 1 / (2 * length)


def analyse(record: dict[str, Any], model=None) -> dict[str, Any]:
    """The spectral reading of one run (its weights from the checkpoint beside its record, or ``model``).

    Returns a dict with the cell, seed, ``score`` (the test accuracy, normalized), ``exact``, ``length`` (the
    longest test length), and for parity ``flip``, ``hold``, ``group``, ``spectral`` (the flip score); for
    Z_m ``m``, ``spectral`` (the worst leading distance to a root, in units of 2π/m; shown, not judged),
    ``generator`` (token 1 has a primitive leading root), ``j1`` (token 1's leading multiples j), ``drift``
    (a rotation model: |mean signed error of the tokens' angles| in units of 2π/m; NaN for other models).
    ``error`` names a missing checkpoint.
    """
    import torch

    from statetrack import spectra as sp
    from statetrack.results import RecordError
    from statetrack.runs import checkpoint_path, load_model

    cfg = RunConfig.from_dict(record["config"])
    score = record["summary"]["ood_normalized"] if record["status"] == "ok" else float("nan")
    out = {**cell_of(record), "seed": cfg.seed, "lr": cfg.train.lr, "key": record["key"], "score": score,
           "exact": exact(record), "length": cfg.eval.max_len, "spectral": float("nan"), "error": ""}
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
        f = sp.flip_direction(sp.transitions(model, sp.all_windows(model, range(2))))
        out.update(flip=f.flip, hold=f.hold, group=f.group, spectral=f.score)
        return out
    m = cfg.task.modulus
    tr = sp.transitions(model, torch.arange(m).unsqueeze(1))  # (m, 1): every number token, no padding
    lam = sp.eigenvalues(tr).flatten(1)  # (m, G·n) the whole block-diagonal matrix's eigenvalues
    lead = sp.leading(lam, leading_fraction(cfg.eval.max_len))  # (m, G·n)
    j, dist = sp.angle_to_roots(lam, m)  # (m, G·n) each
    j1 = sorted(set(j[1][lead[1]].tolist()))
    drift = float("nan")
    if getattr(model, "cfg", None) is not None and getattr(model.cfg, "variant", None) == "rotation":
        turns = [r["turns"] for r in rotation_turns(record, model)]
        drift = abs(sum(t - round(t) for t in turns) / m)
    out.update(m=m, spectral=float((dist[lead] / (2 * math.pi / m)).max()),
               generator=any(math.gcd(x, m) == 1 for x in j1), j1=j1, drift=drift)
    return out


def metrics_of(reading: dict[str, Any]) -> dict[str, float]:
    """A reading as the statements' metrics: NaN for a run that is not an exact solution (left out) or unread."""
    nan = float("nan")
    if not reading["exact"] or reading["error"]:
        return dict.fromkeys(METRICS, nan)
    if reading["task"] == "parity":
        return {"flip_score": reading["spectral"], "drift": nan, "generator": nan}
    return {"flip_score": nan, "drift": reading["drift"], "generator": float(reading["generator"])}


def with_readings(records: list[dict[str, Any]], readings: list[dict[str, Any]] | None = None
                  ) -> list[dict[str, Any]]:
    """Records whose summaries carry the spectral metrics (``analyse``'s, or ``readings``); a record that already
    carries them all is kept as it is."""
    if all(r.get("status") != "ok" or set(METRICS) <= set(r["summary"]) for r in records):
        return list(records)
    readings = readings if readings is not None else [analyse(r) for r in records]
    by_key = {a["key"]: metrics_of(a) for a in readings}
    for name in METRICS:
        records = with_metric(records, name, lambda r, name=name: by_key[r["key"]][name])
    return records


@functools.lru_cache(maxsize=None)
def _statements() -> tuple[Statement, ...]:
    longest: dict[tuple[str, str], list[int]] = {}
    presets: dict[tuple[str, str], list[str]] = {}
    for p in TRAINED_PRESETS:
        for c in grid(p):
            cell = cell_of({"config": c.to_dict()})
            key = (cell["task"], cell["model"])
            longest.setdefault(key, []).append(c.eval.max_len)
            presets.setdefault(key, []).append(p)
    out = []
    for task, model, sid in _CELLS:
        where, L = {"task": task, "model": model}, min(longest[(task, model)])
        judged = tuple(dict.fromkeys(presets[(task, model)]))
        if task == "parity":
            out.append(Statement(
                f"{sid}-flip", f"An exact parity solution of {model} has a direction that '1' flips (−1) and '0' "
                               f"keeps (+1)", "NE Thm 1, Thm 3", "ours", "impossible", "every",
                at_most(round(flip_bound(L), 4), "flip_score"),
                f"the first bit must survive the other letters: about (|λ₁| |uᵀA(0)u|)^(L/2) of it on a random word, "
                f"lost to fp32 rounding (ε = 2⁻²⁴) below ε: a solution to length {L} needs "
                f"max(|λ₁ + 1|, |uᵀA(0)u − 1|) ≤ 1 − ε^(2/{L})", where=where, presets=judged))
            continue
        m = int(task[1:])
        out.append(Statement(
            f"{sid}-generator", f"In an exact Z{m} solution of the {model} model token 1 has a primitive leading "
                                f"root (a generator of Z{m})", "NE Thm 2, Thm 3", "ours", "impossible", "every",
            at_least(1.0, "generator"),
            f"token 1 must move the answer through all {m} values, so a leading eigenvalue of A(1) (|λ| ≥ "
            f"ε^(1/{L}) ρ, above fp32 resolution after {L} normalized steps) has order {m}", where=where,
            presets=judged))
        if model == NAMES["rotation"]:
            out.append(Statement(
                f"{sid}-drift", f"The tokens' angles of an exact Z{m} rotation solution are multiples of 2π/{m} up "
                                f"to a mean error that keeps the count for {L} tokens", "NE Thm 3", "ours",
                "impossible", "every", at_most(round(drift_bound(L), 6), "drift"),
                f"a random word of L tokens drifts by about L times the mean error δ̄ (units of 2π/{m}), and half a "
                f"unit moves the answer: |δ̄| ≤ 1/(2·{L})", where=where, presets=judged))
    out.append(Statement("reads-constructions", "The readings recognise the theorems' constructions and reject a "
                                                "drifting rotation and a [0,1] channel", "NE Thm 3", "ours", "exact",
                         "value", at_least(1.0), "the instrument is checked on matrices set by hand",
                         checks="construction: *"))
    return tuple(out)


def statements() -> list[Statement]:
    """x2's statements: per cell the spectral condition an exact solution must meet, and the instrument's check."""
    return list(_statements())


# ----------------------------------------------------------------------------- exact checks


def _fake(cfg: RunConfig) -> dict[str, Any]:
    return {"key": "hand", "status": "ok", "config": cfg.to_dict(), "summary": {"ood_normalized": 1.0}}


def checks(preset: str) -> list[Check]:
    """The readings on hand-set transitions (training-free, well under a second): the theorems' constructions read
    as exact solutions, and two near misses do not."""
    import torch

    from statetrack import spectra as sp
    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.theory.fsm_simulation import fsm_bilinear

    check_preset(preset)
    cfgs = {}
    for c in grid(preset):
        cfgs.setdefault(cell_of(_fake(c))["task"], c)
    parity_len, z_len = cfgs["parity"].eval.max_len, cfgs["Z5"].eval.max_len
    out = []

    def flip_check(name, a0, a1, want_exact):
        tr = sp.Transitions(torch.tensor([[[[x]] for x in a0], [[[x]] for x in a1]], dtype=torch.float64),
                            torch.tensor([[0], [1]]), "diagonal")
        score = sp.flip_direction(tr).score
        ok = (score <= flip_bound(parity_len)) is want_exact
        out.append(Check(f"construction: {name}", score, f"flip score {'≤' if want_exact else '>'} "
                                                            f"{flip_bound(parity_len):.4f}", ok,
                         f"channels A(0) = {a0}, A(1) = {a1}"))

    flip_check("NE Thm 3's parity automaton in one of three channels reads as exact", [1.0, 0.5, -1.0],
               [-1.0, 0.2, -1.0], True)
    flip_check("a [0,1] channel (A(1) = 0.5) does not", [1.0], [0.5], False)
    r1, r0 = torch.diag(torch.tensor([-1.0, 1.0])), torch.diag(torch.tensor([1.0, -1.0]))  # orthogonal keys
    f = sp.flip_direction(sp.Transitions(torch.stack([r0, r1])[:, None].double(), torch.tensor([[0], [1]]),
                                         "householder"))
    out.append(Check("construction: two reflections along orthogonal keys (a DeltaNet head) read as exact", f.score,
                     f"flip score ≤ {flip_bound(parity_len):.4f}", f.score <= flip_bound(parity_len),
                     f"λ(1) = {f.flip:+.3f}, uᵀA(0)u = {f.hold:.3f}"))

    def z_check(name, model, cfg, want_exact):
        a = analyse(_fake(cfg), model)
        drift = 0.0 if a["drift"] != a["drift"] else a["drift"]  # a dense model's drift is not read
        holds = bool(a["generator"]) and drift <= drift_bound(z_len)
        out.append(Check(f"construction: {name}", drift, f"{'reads' if want_exact else 'does not read'} as exact: token "
                         f"1 primitive and drift ≤ {drift_bound(z_len):g}", holds is want_exact,
                         f"token 1 at j = {a['j1']}, worst leading distance {a['spectral']:.2g}"))

    for m in (3, 5):
        cfg = next(c for c in grid(preset) if c.task.name == "modular_addition" and c.task.modulus == m
                   and c.model.variant == "rotation")
        task = make_task(cfg.task)
        for drift, name, want in ((0.0, f"the rotation θ_v = 2πv/{m} reads on the roots", True),
                                  (2.0 / z_len, f"a rotation drifting 2/{z_len} of the spacing per token does not",
                                   False)):
            model = make_model(cfg.model, task.vocab_size, task.num_classes)
            with torch.no_grad():
                angle = (2 * math.pi / m) * torch.arange(float(task.vocab_size)) * (1 + drift)  # (V,)
                model.transition.copy_(angle.reshape(-1, *[1] * (model.transition.dim() - 1))
                                       .expand_as(model.transition))
            z_check(name, model, cfg, want)
    full = next(c for c in grid(preset) if c.task.name == "modular_addition" and c.task.modulus == 5
                and c.model.variant == "full")
    table = torch.stack([(torch.arange(5) + v) % 5 for v in range(5)], 1)  # (5 states, 5 tokens): q → q + v
    z_check("the regular representation of Z5 in a full model (H = 5) reads on the roots", fsm_bilinear(table),
            full, True)
    return out


# ----------------------------------------------------------------------------- verdict


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None,
            readings: list[dict[str, Any]] | None = None) -> Verdict:
    """x2's statements on the exact solutions among one preset's records (read from their weights unless the records
    carry the metrics or ``readings`` are given) and the instrument's checks."""
    exact = exact_checks(__name__, preset, checks)
    v = decide(ID, preset, with_readings(records, readings), statements(), cell_of=cell_of, label_of=label,
               checks=exact)
    for o in v.statements:  # the protocol's reason names diverged runs; here they are the runs not exact
        if o.reason == "every run it reads diverged":
            o.reason = "no run of this cell is an exact solution (accuracy 1 at every test length) or diverged"
    return v


def eigen_frame(record: dict[str, Any], model=None) -> Any:
    """Every eigenvalue of one run's per-token transitions, as a tidy frame (the figures' input).

    Columns: panel (``label`` of the cell), seed, token (the window's last token, as text), re, im,
    scaled_re, scaled_im (λ over its matrix's spectral radius: with the state normalized every step only
    this ratio matters; equal to re, im for the parity models, whose radius is ≤ 1 anyway and which are
    drawn unscaled), leading (modulus ≥ ``leading_fraction`` of the longest test length × radius), flip (parity: the eigenvalue of the flip
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
    lead = sp.leading(flat, leading_fraction(cfg.eval.max_len))  # (W, G·n)
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
        L = cfg.eval.max_len
        if cell["task"] == "parity":
            passes = a["spectral"] <= flip_bound(L)
        else:
            passes = a["generator"] and not a["drift"] > drift_bound(L)
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
