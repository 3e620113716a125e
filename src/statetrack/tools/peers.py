"""Our fast paths against the public pure-PyTorch code users would otherwise pick (``statetrack bench --peers``).

| comparison             | ours                                   | peer                                                   |
|------------------------|----------------------------------------|--------------------------------------------------------|
| diagonal_vs_pscan      | ``diagonal_recurrence`` (a ∈ [−1, 1])  | mamba.py's Blelloch ``pscan`` (package ``mambapy``)     |
| selective_vs_mambapy   | ``selective_scan`` (fused) + D u       | mamba.py ``MambaBlock.selective_scan`` (exp, ⊗, pscan)  |
| mamba_block_vs_mambapy | our Mamba layer (``MambaMixer``, fast) | mamba.py ``MambaBlock`` (same weights, pscan)           |
| delta_vs_fla_chunkwise | ``delta_rule_chunked`` (C = 16 on CPU) | fla ``delta_rule_chunkwise`` (naive torch, C = 32)      |
| delta_vs_fla_recurrent | ``delta_rule_chunked`` (C = 16 on CPU) | fla ``delta_rule_recurrence`` (naive torch loop)        |

Each pair computes the same function once conventions are matched (fla scales q by d_k^−1/2 inside,
so ours gets q·d_k^−1/2; fla's naive forms take no initial state, so neither gets one; mamba.py's
scan is [0,1]-only in its block, so the selective pair runs eig_range [0,1]). Before anything is
timed, ``check_agreement`` compares the outputs and the gradient of every input in fp32 and stops with
``PeerDisagreement`` when they differ beyond rounding. Timing is interleaved in one process (ours,
peer, ours, peer, …) so that load on a shared machine hits both alike; min and median are kept for the
forward (no grad) and forward+backward, at T = 64, 256, 1024. Ratios are peer time / our time
(> 1: ours is faster).

The peers are an optional extra (``pip install -e '.[peers]'``); without them ``PeersMissing``
names the extra. On a CPU, fla's naive functions are loaded from ``fla/ops/delta_rule/naive.py``
by path when ``import fla.ops.delta_rule`` fails: that package's ``__init__`` imports the Triton
kernels, and the naive file itself needs only torch and einops.

Used in: ``statetrack bench --peers``, benchmarks/results/, benchmarks/README.md (the peer run), tests/test_peers.py.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from statetrack.models.layers import MambaMixer
from statetrack.models.ops import delta_rule_chunked, diagonal_recurrence, selective_scan
from statetrack.training import fp32_policy
from statetrack.tools.bench import forward_only, time_interleaved
from statetrack.tools.bench import environment

EXTRA = "peers"
PEER_PACKAGES = ("mambapy==1.2.0", "flash-linear-attention==0.6.0")
LENGTHS = (64, 256, 1024)
AGREE_TOL = 1e-4  # fp32 vs fp32, norm-relative: both sides round differently (scan orders); a convention bug is O(1)
SIZES = {"cpu": {"B": 8, "E": 128, "N": 16, "H": 4, "d": 64}, "tiny": {"B": 2, "E": 8, "N": 4, "H": 2, "d": 8}}


class PeersMissing(RuntimeError):
    """A peer package is not installed; the message names the extra that installs it."""


class PeerDisagreement(RuntimeError):
    """Ours and the peer compute different functions on the same inputs (a convention mismatch)."""


@dataclass(frozen=True)
class PeerPair:
    """One comparison: ``ours(*inputs)`` and ``peer(*inputs)`` return the compared output tensor.

    Attributes:
        name: e.g. "delta_vs_fla_chunkwise".
        ours, peer: callables on the same positional inputs (conventions are mapped inside them).
        make_inputs: ``f(size: dict, T: int, gen) -> tuple`` of fp32 tensors, every one differentiable.
        ours_label, peer_label: what is timed, for the table.
    """

    name: str
    ours: Callable[..., torch.Tensor]
    peer: Callable[..., torch.Tensor]
    make_inputs: Callable[..., tuple]
    ours_label: str
    peer_label: str


def _missing(what: str) -> PeersMissing:
    return PeersMissing(f"statetrack bench --peers needs the optional extra [{EXTRA}] ({', '.join(PEER_PACKAGES)}); "
                        f"missing: {what}. Install it with: pip install -e '.[{EXTRA}]'")


def load_fla_naive() -> tuple[Any, str]:
    """fla's naive delta-rule module and how it was loaded (import, or by path when Triton is absent)."""
    try:
        from fla.ops.delta_rule import naive  # fla/ops/__init__ imports the Triton kernels

        return naive, "import fla.ops.delta_rule.naive"
    except ImportError as e:
        spec = importlib.util.find_spec("fla")
        if spec is None or not spec.submodule_search_locations:
            raise _missing("flash-linear-attention (module fla)") from e
        path = Path(next(iter(spec.submodule_search_locations))) / "ops" / "delta_rule" / "naive.py"
        if not path.exists():
            raise _missing(f"fla/ops/delta_rule/naive.py (fla installed at {path.parents[2]})") from e
        file_spec = importlib.util.spec_from_file_location("statetrack_peer_fla_delta_naive", path)
        module = importlib.util.module_from_spec(file_spec)
        try:
            file_spec.loader.exec_module(module)  # needs torch and einops only
        except ImportError as e2:
            raise _missing(f"{e2.name} (needed by fla's naive.py)") from e2
        return module, f"{path} loaded by path ({e.name} absent, so fla.ops does not import)"


def versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("mambapy", "flash-linear-attention", "fla-core", "einops", "triton"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


# ---------------------------------------------------------------------------------------------------------
# Inputs (fp32, as the models run) and the pairs
# ---------------------------------------------------------------------------------------------------------


def _diagonal_inputs(size: dict, T: int, gen: torch.Generator) -> tuple:
    B, E, N = size["B"], size["E"], size["N"]
    a = 2 * torch.rand(B, T, E, N, generator=gen) - 1  # (B, T, E·D, N) decays in [−1, 1]
    b = 0.1 * torch.randn(B, T, E, N, generator=gen)  # (B, T, E·D, N)
    return a, b


def _selective_inputs(size: dict, T: int, gen: torch.Generator) -> tuple:
    B, E, N = size["B"], size["E"], size["N"]
    u = torch.randn(B, T, E, generator=gen)  # (B, T, E·D)
    delta = torch.nn.functional.softplus(torch.randn(B, T, E, generator=gen) - 2)  # (B, T, E·D)
    A = -torch.arange(1, N + 1, dtype=torch.float32).repeat(E, 1)  # (E·D, N) Mamba's S4D-real init
    Bm, Cm = torch.randn(B, T, N, generator=gen), torch.randn(B, T, N, generator=gen)  # (B, T, N)
    D = torch.ones(E)  # (E·D,)
    return u, delta, A, Bm, Cm, D


def _delta_inputs(size: dict, T: int, gen: torch.Generator) -> tuple:
    B, H, d = size["B"], size["H"], size["d"]
    q = torch.randn(B, H, T, d, generator=gen)  # (B, H, T, dk)
    k = torch.nn.functional.normalize(torch.randn(B, H, T, d, generator=gen), dim=-1)  # (B, H, T, dk) unit norm
    v = torch.randn(B, H, T, d, generator=gen)  # (B, H, T, dv)
    beta = 2 * torch.rand(B, H, T, generator=gen)  # (B, H, T) NE's [0, 2]
    return q, k, v, beta


def _block_inputs(size: dict, T: int, gen: torch.Generator) -> tuple:
    return (torch.randn(size["B"], T, size["E"] // 2, generator=gen),)  # (B, T, D) a Mamba block's input (E = 2 D)


@functools.lru_cache(maxsize=None)
def _mamba_blocks(d_model: int, d_state: int) -> tuple[torch.nn.Module, torch.nn.Module]:
    """Our Mamba layer (fast path, eig_range [0,1], d_conv 4) and mamba.py's ``MambaBlock`` holding the same weights.

    Both are the Mamba-1 block (in_proj → causal conv → SiLU → selective scan + D u → gate → out_proj), with
    the same parameter shapes; ours copies mamba.py's freshly initialised weights, so the pair computes one
    function and ``check_agreement`` holds them to it.
    """
    from mambapy.mamba import MambaBlock, MambaConfig


    torch.manual_seed(0)
    peer = MambaBlock(MambaConfig(d_model=d_model, n_layers=1, d_state=d_state, expand_factor=2, d_conv=4))
    ours = MambaMixer(d_model, d_state, expand=2, d_conv=4, dt_rank=peer.config.dt_rank, eig_range="[0,1]")
    with torch.no_grad():
        for mine, theirs in ((ours.in_proj, peer.in_proj), (ours.conv.conv, peer.conv1d), (ours.x_proj, peer.x_proj),
                             (ours.dt_proj, peer.dt_proj), (ours.out_proj, peer.out_proj)):
            mine.weight.copy_(theirs.weight)
            if mine.bias is not None:
                mine.bias.copy_(theirs.bias)
        ours.A_log.copy_(peer.A_log)
        ours.D.copy_(peer.D)
    return ours, peer


def peer_pairs() -> list[PeerPair]:
    """The five comparisons; raises ``PeersMissing`` (naming the extra) when a peer is not installed."""

    try:
        from mambapy.mamba import MambaBlock, MambaConfig
        from mambapy.pscan import pscan
    except ImportError as e:
        raise _missing(f"mambapy ({e})") from e
    fla, _ = load_fla_naive()

    # MambaBlock.selective_scan reads nothing of its block (all of u, Δ, A, B, C, D are arguments), so one
    # tiny block, built outside the timed region, serves every size.
    block = MambaBlock(MambaConfig(d_model=2, n_layers=1, d_state=1))

    def block_scan(u, delta, A, Bm, Cm, D):
        return block.selective_scan(u, delta, A, Bm, Cm, D)  # (B, T, E·D)

    def ours_selective(u, delta, A, Bm, Cm, D):
        return selective_scan(u, delta, A, Bm, Cm)[0] + D * u  # (B, T, E·D)

    def ours_delta(q, k, v, beta):
        return delta_rule_chunked(q * q.shape[-1] ** -0.5, k, v, beta)[0]  # (B, H, T, dv); fla scales q inside

    return [
        PeerPair("diagonal_vs_pscan", lambda a, b: diagonal_recurrence(a, b)[0], pscan, _diagonal_inputs,
                 "diagonal_recurrence", "mambapy.pscan"),
        PeerPair("selective_vs_mambapy", ours_selective, block_scan, _selective_inputs,
                 "selective_scan (fused)", "mambapy MambaBlock.selective_scan"),
        PeerPair("mamba_block_vs_mambapy", lambda x: _mamba_blocks(x.shape[-1], 16)[0](x),
                 lambda x: _mamba_blocks(x.shape[-1], 16)[1](x), _block_inputs,
                 "MambaMixer (fast)", "mambapy MambaBlock (pscan)"),
        PeerPair("delta_vs_fla_chunkwise", ours_delta, lambda q, k, v, beta: fla.delta_rule_chunkwise(q, k, v, beta)[0],
                 _delta_inputs, "delta_rule_chunked", "fla naive delta_rule_chunkwise"),
        PeerPair("delta_vs_fla_recurrent", ours_delta, lambda q, k, v, beta: fla.delta_rule_recurrence(q, k, v, beta)[0],
                 _delta_inputs, "delta_rule_chunked", "fla naive delta_rule_recurrence"),
    ]


# ---------------------------------------------------------------------------------------------------------
# Agreement, timing, table
# ---------------------------------------------------------------------------------------------------------


def _rel(x: torch.Tensor, ref: torch.Tensor) -> float:
    x, ref = x.detach().double(), ref.detach().double()
    return ((x - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def _output_and_grads(pair: PeerPair, fn, inputs, upstream):
    leaves = [x.detach().requires_grad_() for x in inputs]
    out = fn(*leaves)
    if out.shape != upstream.shape:
        raise PeerDisagreement(f"{pair.name}: output shapes differ, ours {tuple(upstream.shape)}, "
                               f"peer {tuple(out.shape)}")
    grads = torch.autograd.grad(out, leaves, upstream, allow_unused=True)
    return out, [torch.zeros_like(x) if g is None else g for x, g in zip(leaves, grads)]


def check_agreement(pair: PeerPair, inputs: tuple, tol: float = AGREE_TOL) -> dict[str, float]:
    """Relative error of the peer against ours on the output and on the gradient of every input.

    Raises ``PeerDisagreement`` naming the pair and the worst quantity when any exceeds ``tol``.
    """
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        shape = pair.ours(*inputs).shape
    upstream = torch.randn(shape, generator=gen)
    out_o, grads_o = _output_and_grads(pair, pair.ours, inputs, upstream)
    out_p, grads_p = _output_and_grads(pair, pair.peer, inputs, upstream)
    errs = {"output": _rel(out_p, out_o)}
    errs.update({f"grad_input{i}": _rel(gp, go) for i, (gp, go) in enumerate(zip(grads_p, grads_o))
                 if go.norm() > 0 or gp.norm() > 0})
    worst = max(errs, key=errs.get)
    if not errs[worst] <= tol:  # also catches NaN
        raise PeerDisagreement(f"{pair.name}: ours and the peer disagree on {worst} (rel err {errs[worst]:.2e} > "
                               f"{tol:.0e}); they do not compute the same function, so no timing is reported")
    return errs


def bench_pair(pair: PeerPair, T: int, size: dict, repeat: int = 5, warmup: int = 1) -> dict[str, Any]:
    """Agreement first, then interleaved forward and forward+backward timings of ours and the peer."""
    gen = torch.Generator().manual_seed(T)
    inputs = pair.make_inputs(size, T, gen)
    errs = check_agreement(pair, inputs)
    upstream = torch.randn(pair.ours(*inputs).shape, generator=gen)

    def fwd(fn):
        return forward_only(fn, inputs)

    def fwd_bwd(fn):
        def run():
            leaves = [x.detach().requires_grad_() for x in inputs]
            fn(*leaves).backward(upstream)
        return run

    row = {"pair": pair.name, "ours": pair.ours_label, "peer": pair.peer_label, "T": T,
           "size": dict(size), "agreement_max_rel_err": max(errs.values())}
    for mode, maker in (("fwd", fwd), ("fwd_bwd", fwd_bwd)):
        t = time_interleaved({"ours": maker(pair.ours), "peer": maker(pair.peer)}, warmup=warmup, repeat=repeat)
        for who in ("ours", "peer"):
            row[f"{mode}_{who}_min_ms"], row[f"{mode}_{who}_median_ms"] = t[who]["min"], t[who]["median"]
        row[f"{mode}_ratio_min"] = t["peer"]["min"] / t["ours"]["min"]
        row[f"{mode}_ratio_median"] = t["peer"]["median"] / t["ours"]["median"]
    return row


def run(lengths=LENGTHS, scale: str = "cpu", repeat: int = 5, names: list[str] | None = None,
        pairs: list[PeerPair] | None = None) -> dict[str, Any]:
    """Every comparison at every T on the CPU, fp32, fp32 policy (TF32 off); with the environment."""
    if scale not in SIZES:
        raise ValueError(f"unknown scale {scale!r}; allowed: {', '.join(SIZES)}")
    pairs = pairs if pairs is not None else peer_pairs()
    known = [p.name for p in pairs]
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        raise ValueError(f"unknown peer comparisons {unknown}; allowed: {', '.join(known)}")
    env = environment(torch.device("cpu"))
    env["peers"] = versions()
    try:
        env["fla_naive_loaded_as"] = load_fla_naive()[1]
    except PeersMissing:
        env["fla_naive_loaded_as"] = None
    rows = []
    with fp32_policy():
        for pair in pairs:
            if names and pair.name not in names:
                continue
            for T in lengths:
                rows.append(bench_pair(pair, T, SIZES[scale], repeat=repeat))
    return {"environment": env, "scale": scale, "repeat": repeat, "peers": rows}


def format_table(res: dict[str, Any]) -> str:
    """Ours vs each peer: min / median ms, and the ratio peer/ours (> 1: ours is faster)."""
    env = res["environment"]
    lines = [f"statetrack bench --peers: {env['cpu']}, torch {env['torch']}, {env['threads']} threads, fp32; "
             f"peers {', '.join(f'{k} {v}' for k, v in env['peers'].items() if v)}",
             f"fla naive: {env.get('fla_naive_loaded_as')}",
             "times: min / median ms over interleaved runs; x = peer / ours (> 1: ours is faster), of the minima "
             "and of the medians", ""]
    head = (f"{'comparison':<24} {'T':>5} {'fwd ours':>15} {'fwd peer':>15} {'x min':>6} {'x med':>6} "
            f"{'f+b ours':>15} {'f+b peer':>15} {'x min':>6} {'x med':>6} {'agree':>8}")
    lines.append(head)
    for r in res["peers"]:
        cell = {m: {w: f"{r[f'{m}_{w}_min_ms']:.2f} / {r[f'{m}_{w}_median_ms']:.2f}" for w in ("ours", "peer")}
                for m in ("fwd", "fwd_bwd")}
        lines.append(f"{r['pair']:<24} {r['T']:>5} {cell['fwd']['ours']:>15} {cell['fwd']['peer']:>15} "
                     f"{r['fwd_ratio_min']:>6.2f} {r['fwd_ratio_median']:>6.2f} {cell['fwd_bwd']['ours']:>15} "
                     f"{cell['fwd_bwd']['peer']:>15} {r['fwd_bwd_ratio_min']:>6.2f} {r['fwd_bwd_ratio_median']:>6.2f} "
                     f"{r['agreement_max_rel_err']:>8.1e}")
    lines.append("")
    seen = []
    for r in res["peers"]:
        if r["pair"] not in seen:
            seen.append(r["pair"])
            lines.append(f"{r['pair']}: ours = {r['ours']}; peer = {r['peer']}; size {r['size']}")
    return "\n".join(lines)


__all__ = ["EXTRA", "LENGTHS", "PeerDisagreement", "PeerPair", "PeersMissing", "bench_pair", "check_agreement",
           "format_table", "load_fla_naive", "peer_pairs", "run"]
