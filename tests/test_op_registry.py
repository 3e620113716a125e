"""Every registered op pair (``models.ops.PAIRS``): the fast path held to its sequential reference in fp64.

The test walks the registry, so a pair registered later is covered without touching this file. For each
pair and each of its named sizes (shrunk to a few units per dimension, so the whole module takes seconds),
the pair's own input maker draws the inputs; both implementations then run in fp64 and must agree on
every output (the final state included) and on the gradient of every floating-point input under one
random upstream gradient. A second check runs the fast path in fp32 against the same fp64 reference.

Tolerances are norm-relative (``helpers.rel_err``), as in tests/test_ops.py: fp64 ``1e-12`` (the two differ
in summation order only; measured ≤ 9e-15 here), fp32 ``1e-5`` (measured ≤ 1.8e-6, mLSTM at T = 19; a
convention bug is O(1)). A negative control shows the comparison fails a fast path that is slightly wrong. The
hand-worked cases and the larger, per-op sweeps live in tests/test_ops.py, test_ops_gated_pd_complex.py,
test_bilinear.py, test_rnn.py, test_xlstm.py and test_transformer.py.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from helpers import rel_err
from statetrack.models.ops import PAIRS
from statetrack.models.ops.registry import generator

FP64_TOL, FP32_TOL = 1e-12, 1e-5
LENGTHS = (1, 19)  # one step, and a length that is not a multiple of any chunk size


def shrink(size: dict) -> dict:
    """A registered size made small: batch and heads 2, other dimensions at most 8 (tuples: 4 per entry).

    Structural knobs are kept (block size ``b``, Householder steps ``n_h``); a bilinear pair's ``H`` (a width,
    beside a vocabulary ``V``) stays a multiple of ``b`` and even (rotation pairs take H/2 angles)."""
    out = {}
    for k, v in size.items():
        if k == "T":
            continue
        if isinstance(v, (tuple, list)):
            out[k] = tuple(min(x, 4) for x in v)
        elif k in ("b", "n_h"):
            out[k] = v
        elif k == "B" or (k == "H" and "V" not in size):
            out[k] = min(v, 2)
        else:
            out[k] = min(v, 8)
    if "b" in size:
        out["H"] = 2 * size["b"]
    return out


def _cases():
    cases, seen = [], set()
    for name, pair in sorted(PAIRS.items()):
        for scale, size in sorted(pair.sizes.items()):
            small = shrink(size)
            key = (name, tuple(sorted(small.items())))
            if key in seen:
                continue
            seen.add(key)
            cases.append(pytest.param(name, small, id=f"{name}-{scale}"))
    return cases


def err(got: torch.Tensor, want: torch.Tensor) -> float:
    """Norm-relative error; where the reference is exactly zero (attention's dq at T = 1: softmax over one key),
    the absolute norm (the inputs are O(1))."""
    if want.detach().abs().max().item() == 0:
        return got.detach().double().norm().item()
    return rel_err(got, want)


def _tensors(out) -> list[torch.Tensor]:
    return [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, torch.Tensor)]


def _run(fn, inputs, dtype, upstream=None, gen=None):
    """``fn`` on fresh leaves in ``dtype`` (floating inputs require grad); outputs, and gradients of ``upstream``."""
    leaves = [x.detach().to(dtype).requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
              for x in inputs]
    outs = _tensors(fn(*leaves))
    if upstream is None:
        upstream = [torch.randn(o.shape, generator=gen, dtype=torch.float64) for o in outs]
    grads = torch.autograd.grad(outs, [x for x in leaves if isinstance(x, torch.Tensor) and x.requires_grad],
                                [u.to(dtype) for u in upstream], allow_unused=True)
    return outs, list(grads), upstream


def test_registry_is_not_empty_and_every_pair_is_complete():
    assert len(PAIRS) >= 10
    for name, pair in PAIRS.items():
        assert pair.name == name and callable(pair.reference) and callable(pair.fast) and callable(pair.make_inputs)
        assert pair.sizes, f"{name}: no named size for the benchmark"
        assert pair.reference is not pair.fast, f"{name}: the fast path is its own reference"


def mismatches(pair, size: dict, T: int) -> list[str]:
    """Everything on which ``pair.fast`` (fp64, then fp32) and ``pair.reference`` (fp64) disagree; [] when none."""
    name = pair.name
    inputs = pair.make_inputs(size, T, torch.float64, "cpu", generator(T))
    ref_out, ref_grads, upstream = _run(pair.reference, inputs, torch.float64, gen=torch.Generator().manual_seed(T))
    assert ref_out, f"{name}: the reference returned no tensor"
    assert 0 <= pair.state_output < len(ref_out), f"{name}: state_output {pair.state_output} is not an output"
    bad = []
    for dtype, tol in ((torch.float64, FP64_TOL), (torch.float32, FP32_TOL)):
        out, grads, _ = _run(pair.fast, inputs, dtype, upstream=upstream)
        assert len(out) == len(ref_out), f"{name}: {len(out)} outputs, the reference has {len(ref_out)}"
        for i, (got, want) in enumerate(zip(out, ref_out)):
            what = "final state" if i == pair.state_output else f"output {i}"
            assert got.dtype == dtype and got.shape == want.shape, f"{name} {what}: {got.dtype} {tuple(got.shape)}"
            if not err(got, want) < tol:
                bad.append(f"{dtype} {what}: rel err {err(got, want):.2e}")
        assert len(grads) == len(ref_grads)
        for i, (got, want) in enumerate(zip(grads, ref_grads)):
            if want is None:  # the reference does not depend on this input: neither may the fast path
                if got is not None and got.abs().max().item() > 0:
                    bad.append(f"{dtype} input {i}: a gradient where the reference has none")
            elif got is None:
                bad.append(f"{dtype} input {i}: no gradient (the reference has one)")
            elif not err(got, want) < tol:
                bad.append(f"{dtype} grad of input {i}: rel err {err(got, want):.2e}")
    return bad


@pytest.mark.parametrize("T", LENGTHS)
@pytest.mark.parametrize("name,size", _cases())
def test_fast_path_matches_reference(name, size, T):
    assert mismatches(PAIRS[name], size, T) == []


def test_a_wrong_fast_path_is_caught():
    """Negative control: the diagonal reference with h0 off by one part in 1e6 fails in fp64 (not in fp32),
    and one that drops h0's gradient fails on that gradient."""
    pair = PAIRS["diagonal"]
    size = shrink(pair.sizes["cpu"])
    nudged = dataclasses.replace(pair, fast=lambda a, b, h0: pair.reference(a, b, h0 * (1 + 1e-6)))
    bad = mismatches(nudged, size, 19)
    assert bad and all("float64" in m for m in bad), bad
    detached = dataclasses.replace(pair, fast=lambda a, b, h0: pair.reference(a, b, h0.detach()))
    assert "torch.float64 input 2: no gradient (the reference has one)" in mismatches(detached, size, 19)
