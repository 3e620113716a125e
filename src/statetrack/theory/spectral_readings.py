"""NE Thms 1–3 read off a model's per-token transitions A(x): what an exact solution's spectrum must show in fp32.

- ``flip_bound`` (NE Thm 1, 3): parity needs a direction that "1" flips (−1) and "0" keeps (+1), up to 1 − ε^(2/L).
- ``leading_fraction``: |λ| / ρ below which an eigen-direction of a state normalized every step is lost by L.
- ``drift_bound`` (NE Thm 3): a Z_m rotation's mean angle error may move the answer by at most half a unit in L.
- ``read``: one model's reading (parity: flip, hold, group, score; Z_m: worst leading distance to a root,
  whether token 1 has a primitive leading root, its multiples j, a rotation's drift); ``turns``, ``eigen_rows``.
- ``construction_checks``: the readings on hand-set transitions (NE Thm 3's parity automaton, rotations by
  2πv/m, Z_5's regular representation) and on near misses that must not read as solutions.

Used in: claims/x2/claim.py (its readings, bounds and exact checks), tests/test_claims_x2.py.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from statetrack import spectra as sp
from statetrack.check import Check
from statetrack.models import make_model
from statetrack.tasks import make_task
from statetrack.theory.fsm_simulation import fsm_bilinear

EPS = 2.0 ** -24  # fp32 unit roundoff: the arithmetic our runs train and test in


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


def windows(cfg: Any, model: Any) -> torch.Tensor:
    """The token windows read: every window of 0s and 1s for parity, else every number token alone."""
    if cfg.task.name == "parity":
        return sp.all_windows(model, range(2))
    return torch.arange(cfg.task.modulus).unsqueeze(1)  # (m, 1): every number token, no padding


def turns(cfg: Any, model: Any) -> torch.Tensor:
    """R(θ) and R(−θ) share eigenvalues: the signed angle θ_v per number token (first 2×2 block) tells them apart;
    Z_m needs θ_v ≡ v·θ_1 (mod 2π). In units of 2π/m, in [−½, m − ½)."""
    m = cfg.task.modulus
    theta = model.tables()[0][:m, 0].detach().double()  # (m,) first block's angle per number token
    return (theta / (2 * math.pi / m) + 0.5) % m - 0.5  # (m,) in [−0.5, m − 0.5): a root j sits at j, never at m


def read(cfg: Any, model: Any) -> dict[str, Any]:
    """NE Thm 1–3's reading of one model: parity ``flip``, ``hold``, ``group``, ``spectral`` (the flip score); Z_m
    ``m``, ``spectral`` (worst leading distance to a root, units of 2π/m), ``generator``, ``j1``, ``drift``."""
    tr = sp.transitions(model, windows(cfg, model))
    if cfg.task.name == "parity":
        f = sp.flip_direction(tr)
        return {"flip": f.flip, "hold": f.hold, "group": f.group, "spectral": f.score}
    m = cfg.task.modulus
    lam = sp.eigenvalues(tr).flatten(1)  # (m, G·n) the whole block-diagonal matrix's eigenvalues
    lead = sp.leading(lam, leading_fraction(cfg.eval.max_len))  # (m, G·n)
    j, dist = sp.angle_to_roots(lam, m)  # (m, G·n) each
    j1 = sorted(set(j[1][lead[1]].tolist()))
    drift = float("nan")
    if getattr(model, "cfg", None) is not None and getattr(model.cfg, "variant", None) == "rotation":
        drift = abs(sum(float(t) - round(float(t)) for t in turns(cfg, model)) / m)
    return {"m": m, "spectral": float((dist[lead] / (2 * math.pi / m)).max()),
            "generator": any(math.gcd(x, m) == 1 for x in j1), "j1": j1, "drift": drift}


def eigen_rows(cfg: Any, model: Any) -> list[dict[str, Any]]:
    """Every eigenvalue of the per-token transitions: token (the window's last), re, im, scaled_re, scaled_im (λ / ρ,
    all that matters with the state normalized every step; unscaled for parity, whose ρ ≤ 1), leading, flip."""
    parity = cfg.task.name == "parity"
    tr = sp.transitions(model, windows(cfg, model))
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
    return [{"token": str(int(tr.last_token[w])), "re": float(flat[w, i].real), "im": float(flat[w, i].imag),
             "scaled_re": float(scaled[w, i].real), "scaled_im": float(scaled[w, i].imag),
             "leading": bool(lead[w, i]), "flip": bool(flip[w, i])}
            for w in range(len(flat)) for i in range(flat.shape[1])]


def construction_checks(parity_len: int, z_len: int, rotation_cfgs: dict[int, Any], full_z5_cfg: Any
                        ) -> list[Check]:
    """NE Thm 3's constructions read as exact solutions, near misses do not: a ``Check``
    each; flip scores against ``flip_bound(parity_len)``, Z_m readings against ``drift_bound(z_len)``."""
    bound, out = flip_bound(parity_len), []

    def flip_check(name, mats, kind, want_exact, detail=None):
        f = sp.flip_direction(sp.Transitions(mats, torch.tensor([[0], [1]]), kind))
        out.append(Check(label=f"construction: {name}", value=f.score,
                         rule=f"flip score {'≤' if want_exact else '>'} {bound:.4f}",
                         passed=(f.score <= bound) is want_exact,
                         detail=detail or f"λ(1) = {f.flip:+.3f}, uᵀA(0)u = {f.hold:.3f}"))

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
        a = read(cfg, model)
        drift = 0.0 if a["drift"] != a["drift"] else a["drift"]  # a dense model's drift is not read
        holds = bool(a["generator"]) and drift <= drift_bound(z_len)
        out.append(Check(label=f"construction: {name}", value=drift,
                         rule=f"{'reads' if want_exact else 'does not read'} as exact: token "
                              f"1 primitive and drift ≤ {drift_bound(z_len):g}", passed=holds is want_exact,
                         detail=f"token 1 at j = {a['j1']}, worst leading distance {a['spectral']:.2g}"))

    for m, cfg in rotation_cfgs.items():
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
            full_z5_cfg, True)
    return out


__all__ = ["EPS", "construction_checks", "drift_bound", "eigen_rows", "flip_bound", "leading_fraction", "read",
           "turns", "windows"]
