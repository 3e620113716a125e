"""Speed and precision benchmarks: every recurrence's fast path against its reference, on CPU or GPU.

Three tables:

1. **ops**: for every registered pair (``models.ops.PAIRS``), forward and forward+backward times of
   the sequential reference and the fast path, their ratio (R1), and how far the fast path's
   outputs are from the reference's in the same dtype (a correctness gate, not a timing).
2. **models**: for every registered model, a full training step (embed → layers → head →
   cross-entropy → backward → AdamW) with ``backend="fast"`` and ``"reference"``: ms/step and
   tokens/s = B·T/step (R7 compares against the Transformer).
3. **precision**: the final state of the fast path in fp32 and bf16 against the fp64 reference at
   T = 500 and 2000 (relative error ‖s − s₆₄‖ / ‖s₆₄‖).

Timing: CPU with ``time.perf_counter``, CUDA with events after synchronising; median of ``repeat``
runs after ``warmup`` runs (the minimum is kept too: on a shared machine it is the steadier
estimate), fresh inputs per size (never zeros). Sizes are the pairs' ``cpu`` /
``gpu`` sizes; ``tiny`` shrinks everything for CI (seconds, correctness only).

Used in: ``statetrack bench``, benchmarks/README.md, tests/test_bench.py.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
from statetrack.models import MODELS, make_model, model_config
from statetrack.models.ops import PAIRS
from statetrack.models.ops.registry import generator
from statetrack.runs.provenance import cpu_name, git
from statetrack.training import param_groups, fp32_policy, resolve_device

SCALES = ("tiny", "cpu", "gpu")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_ms(fn: Callable[[], Any], device: torch.device, warmup: int = 2, repeat: int = 5) -> dict[str, float]:
    """Median, min and max wall time of ``fn()`` in milliseconds."""
    for _ in range(warmup):
        fn()
    _sync(device)
    times = []
    for _ in range(repeat):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize(device)
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return {"median": statistics.median(times), "min": min(times), "max": max(times)}


def time_interleaved(fns: dict[str, Callable[[], Any]], device: torch.device | None = None, warmup: int = 1,
                     repeat: int = 5) -> dict[str, dict]:
    """Run the callables round-robin ``repeat`` times after ``warmup`` rounds; min and median ms of each.

    Round-robin, so that a machine slowing down or speeding up (shared hosts, turbo) moves every
    contender alike and their ratio stays meaningful; a lone median of one contender drifted 1.6× between
    runs on our 2-core machine.
    """
    device = device or torch.device("cpu")
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    _sync(device)
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            _sync(device)
            times[k].append((time.perf_counter() - t0) * 1e3)
    return {k: {"min": min(v), "median": statistics.median(v)} for k, v in times.items()}


def _size(pair, scale: str) -> dict[str, Any]:
    if scale == "tiny":
        base = dict(pair.sizes.get("cpu") or next(iter(pair.sizes.values())))
        shrunk = {k: (min(v, 4) if k in ("B", "H") else min(v, 16) if k == "T" else v) for k, v in base.items()}
        if "S" in shrunk:
            shrunk["S"] = tuple(min(s, 8) for s in shrunk["S"])
        for k in ("D", "dk", "dv", "d", "V"):
            if k in shrunk:
                shrunk[k] = min(shrunk[k], 16)
        return shrunk
    if scale not in pair.sizes:
        raise ValueError(f"pair {pair.name!r} has no size {scale!r}; it has {sorted(pair.sizes)}")
    return dict(pair.sizes[scale])


def forward_only(fn, inputs):
    """A timing closure: ``fn(*inputs)`` without autograd (the forward half of a benchmark)."""
    def run():
        with torch.no_grad():
            fn(*inputs)
    return run


def _outputs(out) -> list[torch.Tensor]:
    return [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, torch.Tensor)]


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def bench_pair(pair, scale: str, device: torch.device, dtype: torch.dtype = torch.float32,
               warmup: int = 2, repeat: int = 5) -> dict[str, Any]:
    """Time reference and fast path of one pair, forward and forward+backward, and check they agree."""

    size = _size(pair, scale)
    T = int(size.pop("T", 128 if scale != "tiny" else 16))
    gen = generator(0, device)
    inputs = pair.make_inputs(size, T, dtype, device, gen)
    grads_for = [x.is_floating_point() for x in inputs]

    def leaves():
        return [x.detach().requires_grad_(g) if isinstance(x, torch.Tensor) else x for x, g in zip(inputs, grads_for)]

    with torch.no_grad():
        ref_out, fast_out = _outputs(pair.reference(*inputs)), _outputs(pair.fast(*inputs))
    upstream = [torch.randn(o.shape, generator=gen, device=device, dtype=o.dtype) for o in ref_out]
    agree = max(_rel(f, r) for f, r in zip(fast_out, ref_out))

    def fwd(fn):
        return forward_only(fn, inputs)

    def fwd_bwd(fn):
        def run():
            xs = leaves()
            outs = _outputs(fn(*xs))
            torch.autograd.backward(outs, upstream)
        return run

    row = {"pair": pair.name, "scale": scale, "size": {**size, "T": T}, "dtype": str(dtype).removeprefix("torch."),
           "fast_vs_reference_rel_err": agree, "why": pair.why}
    for label, maker in (("fwd", fwd), ("fwd_bwd", fwd_bwd)):
        ref = time_ms(maker(pair.reference), device, warmup, repeat)
        fast = time_ms(maker(pair.fast), device, warmup, repeat)
        row[f"{label}_ref_ms"], row[f"{label}_fast_ms"] = ref["median"], fast["median"]
        row[f"{label}_speedup"] = ref["median"] / fast["median"]
        # On a shared machine the minimum is the steadier estimate; both are kept.
        row[f"{label}_ref_min_ms"], row[f"{label}_fast_min_ms"] = ref["min"], fast["min"]
        row[f"{label}_speedup_of_min"] = ref["min"] / fast["min"]
    return row


def precision_rows(pair, device: torch.device, lengths=(500, 2000), dtypes=(torch.float32, torch.bfloat16),
                   scale: str = "cpu") -> list[dict[str, Any]]:
    """Final-state relative error of the fast path in each dtype against the fp64 reference."""

    size = _size(pair, "tiny" if scale == "tiny" else scale)
    size.pop("T", None)
    size["B"] = min(size.get("B", 4), 4)  # precision does not need a big batch
    rows = []
    for T in lengths:
        inputs64 = pair.make_inputs(size, T, torch.float64, device, generator(1, device))
        with torch.no_grad():
            ref = _outputs(pair.reference(*inputs64))[pair.state_output]
            for dt in dtypes:
                low = tuple(x.to(dt) if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs64)
                row = {"pair": pair.name, "T": T, "dtype": str(dt).removeprefix("torch.")}
                try:
                    out = _outputs(pair.fast(*low))[pair.state_output]
                    row["final_state_rel_err"] = _rel(out, ref)
                except (NotImplementedError, RuntimeError) as e:  # e.g. no bf16 kernel for an op on this device
                    row["final_state_rel_err"] = None
                    row["note"] = f"not supported: {str(e).splitlines()[0]}"
                rows.append(row)
    return rows


def bench_models(device: torch.device, scale: str, names: list[str] | None = None,
                 warmup: int = 2, repeat: int = 9) -> list[dict[str, Any]]:
    """A full training step per model and backend: ms/step (median and min) and tokens/s (B·T per step).

    A model's backends are timed interleaved (``time_interleaved``), so the fast path's speed-up over
    the reference (``speedup``, of the medians; ``speedup_of_min``, of the minima) compares steps taken
    under the same conditions.
    """
    from typing import get_args, get_type_hints


    B, T, D = {"tiny": (4, 16, 16), "cpu": (32, 64, 64), "gpu": (256, 500, 256)}[scale]
    V, K = 8, 8
    rows = []
    for name in names or sorted(MODELS):
        cls = MODELS[name].Config
        fields = {"d_model": D}
        hints = get_type_hints(cls)
        if "num_heads" in hints:
            fields["num_heads"] = 4 if D % 4 == 0 else 1
        if "max_len" in hints:
            fields["max_len"] = max(T, 512)
        backends = get_args(hints.get("backend")) if "backend" in hints else ("fast",)
        gen = torch.Generator().manual_seed(0)
        tokens = torch.randint(0, V, (B, T), generator=gen).to(device)
        targets = torch.randint(0, K, (B, T), generator=gen).to(device)
        steps, made = {}, {}
        for backend in [b for b in ("fast", "reference") if b in backends]:
            try:
                cfg = model_config(name, **fields, **({"backend": backend} if "backend" in hints else {}))
            except Exception as e:  # a model whose defaults do not fit this size: say so, do not hide it
                rows.append({"model": name, "backend": backend, "error": str(e)})
                continue
            torch.manual_seed(0)
            model = make_model(cfg, V, K).to(device)
            steps[backend] = _training_step(model, tokens, targets, K)
            made[backend] = (cfg, sum(p.numel() for p in model.parameters()))
        times = time_interleaved(steps, device, warmup, repeat)
        for backend, t in times.items():
            cfg, params = made[backend]
            row = {"model": name, "label": cfg.label, "backend": backend, "B": B, "T": T, "d_model": D,
                   "params": params, "step_ms": t["median"], "step_min_ms": t["min"],
                   "tokens_per_s": B * T / (t["median"] / 1e3)}
            if backend == "fast" and "reference" in times:
                row["speedup"] = times["reference"]["median"] / t["median"]
                row["speedup_of_min"] = times["reference"]["min"] / t["min"]
            rows.append(row)
    return rows


def _training_step(model: torch.nn.Module, tokens: torch.Tensor, targets: torch.Tensor, K: int) -> Callable[[], None]:
    """One step of AdamW on cross-entropy, as ``training.fit`` takes it (without clipping and logging)."""
    from torch.nn import functional as F


    opt = torch.optim.AdamW(param_groups(model, 0.01), lr=1e-3)

    def step():
        logits = model(tokens)  # (B, T, K)
        loss = F.cross_entropy(logits.reshape(-1, K), targets.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def environment(device: torch.device) -> dict[str, Any]:
    import datetime as dt


    env = {"git_commit": git("rev-parse", "HEAD"), "git_dirty": bool(git("status", "--porcelain", "--", "src")),
           "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "torch": torch.__version__, "python": platform.python_version(), "threads": torch.get_num_threads(),
           "device": str(device), "cpu": cpu_name(), "cuda": torch.version.cuda,
           "tf32": torch.backends.cuda.matmul.allow_tf32}
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
    try:
        import fla  # noqa: F401

        env["fla"] = getattr(fla, "__version__", "importable")
    except Exception:
        env["fla"] = None
    return env


def run(device: str = "cpu", scale: str | None = None, pairs: list[str] | None = None,
        models: list[str] | None = None, precision: bool = True, repeat: int = 7) -> dict[str, Any]:
    """Every table at once; ``scale`` defaults to the device's (``cpu`` or ``gpu``)."""

    dev = resolve_device(device)
    scale = scale or ("gpu" if dev.type == "cuda" else "cpu")
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; allowed: {', '.join(SCALES)}")
    names = pairs or sorted(PAIRS)
    unknown = [n for n in names if n not in PAIRS]
    if unknown:
        raise ValueError(f"unknown op pairs {unknown}; allowed: {', '.join(sorted(PAIRS))}")
    repeat = 1 if scale == "tiny" else repeat
    warmup = 1 if scale == "tiny" else 2
    with fp32_policy():
        out = {"environment": environment(dev), "scale": scale,
               "ops": [bench_pair(PAIRS[n], scale, dev, warmup=warmup, repeat=repeat) for n in names
                       if scale == "tiny" or scale in PAIRS[n].sizes],
               "models": bench_models(dev, scale, models, warmup=warmup, repeat=repeat)}
        if precision:
            lengths = (50,) if scale == "tiny" else (500, 2000)
            out["precision"] = [r for n in names for r in precision_rows(PAIRS[n], dev, lengths, scale=scale)]
    return out


def format_tables(res: dict[str, Any]) -> str:
    """The three tables as text; the ratio columns are the ones speed targets are stated in."""
    lines = [f"statetrack bench: scale {res['scale']} on {res['environment'].get('gpu') or res['environment']['cpu']}, "
             f"torch {res['environment']['torch']}"]
    lines.append("")
    lines.append("ops: median ms of the reference and the fast path; x = speed-up (median, and of the minima)")
    lines.append(f"{'op pair':<18} {'size':<30} {'fwd ref':>8} {'fwd fast':>9} {'x':>5} {'x min':>6} "
                 f"{'f+b ref':>8} {'f+b fast':>9} {'x':>5} {'x min':>6} {'rel err':>8}")
    for r in res["ops"]:
        size = ",".join(f"{k}{v}" for k, v in r["size"].items()).replace(" ", "")
        lines.append(f"{r['pair']:<18} {size:<30} {r['fwd_ref_ms']:>8.2f} {r['fwd_fast_ms']:>9.2f} "
                     f"{r['fwd_speedup']:>5.2f} {r['fwd_speedup_of_min']:>6.2f} {r['fwd_bwd_ref_ms']:>8.2f} "
                     f"{r['fwd_bwd_fast_ms']:>9.2f} {r['fwd_bwd_speedup']:>5.2f} {r['fwd_bwd_speedup_of_min']:>6.2f} "
                     f"{r['fast_vs_reference_rel_err']:>8.1e}")
    lines.append("")
    lines.append("models: one training step (forward, loss, backward, AdamW); backends timed interleaved; "
                 "x = reference / fast (median, and of the minima)")
    lines.append(f"{'model':<22} {'backend':<10} {'B x T, D':<14} {'ms/step':>9} {'min':>8} {'tokens/s':>11} "
                 f"{'x':>5} {'x min':>6}")
    for r in res["models"]:
        if "error" in r:
            lines.append(f"{r['model']:<22} {r['backend']:<10} error: {r['error']}")
            continue
        x = f"{r['speedup']:>5.2f} {r['speedup_of_min']:>6.2f}" if "speedup" in r else ""
        lines.append(f"{r['label']:<22} {r['backend']:<10} {r['B']}x{r['T']}, {r['d_model']:<6} "
                     f"{r['step_ms']:>9.2f} {r.get('step_min_ms', r['step_ms']):>8.2f} {r['tokens_per_s']:>11.0f} {x}")
    if res.get("precision"):
        lines.append("")
        lines.append("precision: the fast path's final state against the fp64 reference")
        lines.append(f"{'op pair':<18} {'T':>6} {'dtype':<9} {'final-state rel err vs fp64':>28}")
        for r in res["precision"]:
            err = r["final_state_rel_err"]
            lines.append(f"{r['pair']:<18} {r['T']:>6} {r['dtype']:<9} "
                         + (f"{err:>28.2e}" if err is not None else f"{'n/a':>28}  ({r['note']})"))
    return "\n".join(lines)


__all__ = ["SCALES", "bench_models", "bench_pair", "format_tables", "precision_rows", "run", "time_interleaved", "time_ms"]
