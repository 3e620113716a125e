"""Claim x2 (both papers; NE Thms 1–3): the spectra trained models learn sit where the theorems say a solution's must.

Trained: the very runs other claims record (ne1's [−1,1] parity models, bl7's Z_5 rotation and full models, ne2's
Z_3 rotation model; same presets and seeds), retrained with their weights kept (``KEEP_WEIGHTS``: beside each
record, loaded with ``torch.load(weights_only=True)``); ``statetrack.spectra`` reads the first layer's A(x) per
token. Only **exact solutions** are judged (normalized test accuracy ≥ 1 − ``ROUNDING``, every test length all
correct); the rest are shown and left out. Each bound is what such a solution needs in fp32 (ε = 2⁻²⁴) up to the
longest test length L. Exact: the readings on hand-set constructions (``checks``). These readings of the theorems
are ours (no paper opens a trained model), so every statement is ours.

Used in: notebooks/x2_eigenvalue_explorer.md, ``statetrack verify``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (TRAINED_PRESETS, Check, Statement, at_least, at_most, check_seeds, decide,
                                      exact_checks, score, with_metric)
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
    """The source claims' configurations at ``preset`` (default seeds: each source claim's)."""
    from statetrack.claims import bl7, ne1, ne2

    check_preset(preset)
    if seeds is not None:
        seeds = check_seeds(seeds, ())
    out = [c for c in ne1.grid(preset, seeds=seeds) if c.model.eig_range == "[-1,1]"]
    out += [c for c in bl7.grid(preset, seeds=seeds, models=["rotation", "full"]) if c.task.name == "modular_addition"]
    return out + ne2.grid(preset, seeds=seeds, models=["rotation"])


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """The task ("parity" or "Z<m>") and the model's short name."""
    m, t = record["config"]["model"], record["config"]["task"]
    return {"task": "parity" if t["name"] == "parity" else f"Z{t['modulus']}",
            "model": NAMES.get(m.get("variant") or m["name"], m["name"])}


def label(cell: dict[str, Any]) -> str:
    return f"{cell['model']} {cell['task']}"


def exact(record: dict[str, Any]) -> bool:
    """Whether a run is an exact solution on its test set: every test length all correct, within rounding."""
    return record["status"] == "ok" and record["summary"]["ood_normalized"] >= 1 - ROUNDING


def flip_bound(length: int) -> float:
    """NE Thm 1, 3: the answer at L depends on the first bit, of which about (|λ₁| |uᵀA("0")u|)^(L/2) survives a
    random word (λ₁ the eigenvalue of A("1") nearest −1, u its eigenvector; ``spectra.flip_direction``), lost below
    ε; so an exact solution needs max(|λ₁ + 1|, |uᵀA("0")u − 1|) ≤ 1 − ε^(2/L)."""
    return 1 - EPS ** (2 / length)


def leading_fraction(length: int) -> float:
    """|λ| / ρ below which an eigen-direction of a state normalized every step is under fp32 resolution within
    ``length`` steps: ε^(1/length); the others lead, and token 1 of a Z_m solution needs a primitive leading root."""
    return EPS ** (1 / length)


def drift_bound(length: int) -> float:
    """A rotation whose token v turns 2π(j_v + δ_v)/m drifts by about L·δ̄ on a random word, and half a unit (of
    2π/m) moves the answer: |δ̄| ≤ 1/(2L). A dense matrix's conjugate pairs cancel their errors: its drift is unread."""
    return 1 / (2 * length)


def _fake(cfg: RunConfig) -> dict[str, Any]:
    return {"key": "hand", "status": "ok", "config": cfg.to_dict(), "summary": {"ood_normalized": 1.0}}


def _firsts(preset: str) -> dict[tuple[str, str], RunConfig]:
    """(task, model) → the cell's first config in the grid, in grid order."""
    out: dict[tuple[str, str], RunConfig] = {}
    for c in grid(preset):
        out.setdefault(tuple(cell_of(_fake(c)).values()), c)
    return out


def _load(record: dict[str, Any], model=None):
    from statetrack.runs import checkpoint_path, load_model

    return model if model is not None else load_model(record, checkpoint_path(RunConfig.from_dict(record["config"])))


def _windows(cfg: RunConfig, model):
    import torch

    from statetrack import spectra as sp

    if cfg.task.name == "parity":
        return sp.all_windows(model, range(2))
    return torch.arange(cfg.task.modulus).unsqueeze(1)  # (m, 1): every number token, no padding


def analyse(record: dict[str, Any], model=None) -> dict[str, Any]:
    """The spectral reading of one run (weights from its checkpoint, or ``model``): cell, seed, ``score``, ``exact``,
    ``length`` (the longest test length), ``error`` (e.g. a missing checkpoint); for parity ``flip``, ``hold``,
    ``group``, ``spectral`` (the flip score); for Z_m ``m``, ``spectral`` (worst leading distance to a root, units of
    2π/m; shown, not judged), ``generator``, ``j1`` (token 1's leading multiples j), ``drift`` (rotation models)."""
    from statetrack import spectra as sp
    from statetrack.results import RecordError

    cfg = RunConfig.from_dict(record["config"])
    out = {**cell_of(record), "seed": cfg.seed, "lr": cfg.train.lr, "key": record["key"], "score": score(record),
           "exact": exact(record), "length": cfg.eval.max_len, "spectral": float("nan"), "error": ""}
    if record["status"] != "ok":
        return {**out, "error": f"run {record['status']}"}
    try:
        model = _load(record, model)
    except RecordError as e:
        return {**out, "error": str(e)}
    tr = sp.transitions(model, _windows(cfg, model))
    if cfg.task.name == "parity":
        f = sp.flip_direction(tr)
        return {**out, "flip": f.flip, "hold": f.hold, "group": f.group, "spectral": f.score}
    m = cfg.task.modulus
    lam = sp.eigenvalues(tr).flatten(1)  # (m, G·n) the whole block-diagonal matrix's eigenvalues
    lead = sp.leading(lam, leading_fraction(cfg.eval.max_len))  # (m, G·n)
    j, dist = sp.angle_to_roots(lam, m)  # (m, G·n) each
    j1 = sorted(set(j[1][lead[1]].tolist()))
    drift = float("nan")
    if getattr(model, "cfg", None) is not None and getattr(model.cfg, "variant", None) == "rotation":
        drift = abs(sum(r["turns"] - round(r["turns"]) for r in rotation_turns(record, model)) / m)
    return {**out, "m": m, "spectral": float((dist[lead] / (2 * math.pi / m)).max()),
            "generator": any(math.gcd(x, m) == 1 for x in j1), "j1": j1, "drift": drift}


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
    """Records carrying the metrics (from ``readings``, else ``analyse``); records that all carry them stay as is."""
    if all(r.get("status") != "ok" or set(METRICS) <= set(r["summary"]) for r in records):
        return list(records)
    readings = readings if readings is not None else [analyse(r) for r in records]
    by_key = {a["key"]: metrics_of(a) for a in readings}
    for name in METRICS:
        records = with_metric(records, name, lambda r, name=name: by_key[r["key"]][name])
    return records


@functools.lru_cache(maxsize=None)
def _statements() -> tuple[Statement, ...]:
    # L: the shortest of the longest test lengths at the presets that judge the cell (the loosest bound)
    runs: dict[tuple[str, str], list[tuple[str, int]]] = {}  # (task, model) → (preset, longest test length) per run
    for p in TRAINED_PRESETS:
        for c in grid(p):
            runs.setdefault(tuple(cell_of(_fake(c)).values()), []).append((p, c.eval.max_len))
    out = []
    for task, model, sid in _CELLS:
        where, L = {"task": task, "model": model}, min(n for _, n in runs[(task, model)])
        judged = tuple(dict.fromkeys(p for p, _ in runs[(task, model)]))
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
    """Per cell the spectral condition an exact solution must meet (``impossible``), and the instrument's check."""
    return list(_statements())


def checks(preset: str) -> list[Check]:
    """The readings on hand-set transitions (well under a second): the theorems' constructions read as exact
    solutions (NE Thm 3's parity automaton, rotations by 2πv/m, Z_5's regular representation), near misses do not."""
    import torch

    from statetrack import spectra as sp
    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.theory.fsm_simulation import fsm_bilinear

    check_preset(preset)
    firsts = _firsts(preset)
    out = []

    def longest(task):  # the longest test length of the grid's first run on ``task``
        return next(c for (t, _), c in firsts.items() if t == task).eval.max_len

    bound, z_len = flip_bound(longest("parity")), longest("Z5")

    def flip_check(name, mats, kind, want_exact, detail=None):
        f = sp.flip_direction(sp.Transitions(mats, torch.tensor([[0], [1]]), kind))
        out.append(Check(f"construction: {name}", f.score, f"flip score {'≤' if want_exact else '>'} {bound:.4f}",
                         (f.score <= bound) is want_exact, detail or f"λ(1) = {f.flip:+.3f}, uᵀA(0)u = {f.hold:.3f}"))

    def channel_check(name, a0, a1, want_exact):
        mats = torch.tensor([[[[x]] for x in a0], [[[x]] for x in a1]], dtype=torch.float64)  # (2 tokens, C, 1, 1)
        flip_check(name, mats, "diagonal", want_exact, f"channels A(0) = {a0}, A(1) = {a1}")

    channel_check("NE Thm 3's parity automaton in one of three channels reads as exact", [1.0, 0.5, -1.0],
                  [-1.0, 0.2, -1.0], True)
    channel_check("a [0,1] channel (A(1) = 0.5) does not", [1.0], [0.5], False)
    r1, r0 = torch.diag(torch.tensor([-1.0, 1.0])), torch.diag(torch.tensor([1.0, -1.0]))  # orthogonal keys
    flip_check("two reflections along orthogonal keys (a DeltaNet head) read as exact",
               torch.stack([r0, r1])[:, None].double(), "householder", True)

    def z_check(name, model, cfg, want_exact):
        a = analyse(_fake(cfg), model)
        drift = 0.0 if a["drift"] != a["drift"] else a["drift"]  # a dense model's drift is not read
        holds = bool(a["generator"]) and drift <= drift_bound(z_len)
        out.append(Check(f"construction: {name}", drift, f"{'reads' if want_exact else 'does not read'} as exact: token "
                         f"1 primitive and drift ≤ {drift_bound(z_len):g}", holds is want_exact,
                         f"token 1 at j = {a['j1']}, worst leading distance {a['spectral']:.2g}"))

    for m in (3, 5):
        cfg = firsts[(f"Z{m}", NAMES["rotation"])]
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
    table = torch.stack([(torch.arange(5) + v) % 5 for v in range(5)], 1)  # (5 states, 5 tokens): q → q + v
    z_check("the regular representation of Z5 in a full model (H = 5) reads on the roots", fsm_bilinear(table),
            firsts[("Z5", NAMES["full"])], True)
    return out


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None,
            readings: list[dict[str, Any]] | None = None) -> Verdict:
    """The statements on the exact solutions among one preset's records (read from their weights unless the
    records carry the metrics or ``readings`` are given) and the instrument's checks."""
    exact = exact_checks(__name__, preset, checks)
    v = decide(ID, preset, with_readings(records, readings), statements(), cell_of=cell_of, label_of=label,
               checks=exact)
    for o in v.statements:  # the protocol's reason names diverged runs; here they are the runs not exact
        if o.reason == "every run it reads diverged":
            o.reason = "no run of this cell is an exact solution (accuracy 1 at every test length) or diverged"
    return v


def eigen_frame(record: dict[str, Any], model=None) -> Any:
    """Every eigenvalue of one run's per-token transitions, one row each (the figures' input): panel, seed, token
    (the window's last), re, im, scaled_re, scaled_im (λ / spectral radius, all that matters with the state
    normalized every step; unscaled for parity, whose radius is ≤ 1), leading (``leading_fraction``), flip (parity:
    the flip direction's eigenvalue)."""
    import pandas as pd
    import torch

    from statetrack import spectra as sp

    cfg = RunConfig.from_dict(record["config"])
    model = _load(record, model)
    parity = cfg.task.name == "parity"
    tr = sp.transitions(model, _windows(cfg, model))
    lam = sp.eigenvalues(tr)  # (W, G, n)
    flat = lam.flatten(1)  # (W, G·n)
    scaled = flat if parity else flat / flat.abs().amax(-1, keepdim=True)  # (W, G·n)
    lead = sp.leading(flat, leading_fraction(cfg.eval.max_len))  # (W, G·n)
    flip = torch.zeros_like(lead)
    if parity:
        g, n = sp.flip_direction(tr).group, lam.shape[-1]
        near = (lam[:, g] + 1).abs().argmin(-1)  # (W,) the flip direction's eigenvalue in block g
        for w in range(len(flat)):
            # on "0" a 1×1 block's eigenvalue is the hold value itself; in a wider block (a DeltaNet head)
            # the hold value uᵀA(0)u is no eigenvalue, so only the "1" windows are marked
            if int(tr.last_token[w]) == 1 or n == 1:
                flip[w, g * n + int(near[w]) * (int(tr.last_token[w]) == 1)] = True
    panel = label(cell_of(record))
    return pd.DataFrame([{"panel": panel, "seed": cfg.seed, "token": str(int(tr.last_token[w])),
                          "re": float(flat[w, i].real), "im": float(flat[w, i].imag),
                          "scaled_re": float(scaled[w, i].real), "scaled_im": float(scaled[w, i].imag),
                          "leading": bool(lead[w, i]), "flip": bool(flip[w, i])}
                         for w in range(len(flat)) for i in range(flat.shape[1])])


def init_contrast(preset: str) -> list[dict[str, Any]]:
    """The readings on each cell's first config *untrained* (its seed's initialization): a rule that passed before
    any training would say nothing."""
    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.training import seed_everything

    out = []
    for cfg in _firsts(preset).values():
        cell = cell_of(_fake(cfg))
        task = make_task(cfg.task)
        seed_everything(cfg.seed)  # the initialization the trained run started from
        a = analyse(_fake(cfg), make_model(cfg.model, task.vocab_size, task.num_classes))
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

    R(θ) and R(−θ) have the same eigenvalues e^{±iθ}: only the signed angles tell a token that turns forward from
    one that turns back; solving Z_m needs θ_v ≡ v·θ_1 (mod 2π), a homomorphism Z_m → SO(2).
    """
    cfg = RunConfig.from_dict(record["config"])
    m = cfg.task.modulus
    theta = _load(record, model).tables()[0][:m, 0].detach().double()  # (m,) first block's angle per number token
    turns = (theta / (2 * math.pi / m) + 0.5) % m - 0.5  # in [−0.5, m − 0.5): a root j sits at j, never at m
    panel = label(cell_of(record))
    return [{"panel": panel, "seed": cfg.seed, "token": v, "turns": float(turns[v]), "m": m, "score": score(record)}
            for v in range(m)]
