"""The classical nonlinear RNN cells: Elman (tanh RNN) and LSTM, one layer each (BL's baselines).

Pairs (PyTorch's weight layout and gate order, so both take ``nn.RNN`` / ``nn.LSTM`` parameters as they are):

| rule                                                               | reference          | fast           |
|--------------------------------------------------------------------|--------------------|----------------|
| h_t = tanh(W_ih x_t + b_ih + W_hh h_{t−1} + b_hh)                  | ``elman_sequential`` | ``elman_native`` |
| [i f g o] = W_ih x_t + b_ih + W_hh h_{t−1} + b_hh; c_t = σ(f) c_{t−1} + σ(i) tanh(g); h_t = σ(o) tanh(c_t) | ``lstm_sequential`` | ``lstm_native`` |

The references are Python loops over ``unbind`` that autograd differentiates; the fast paths are
torch's native kernels (oneDNN for the fp32 LSTM on CPU, a C++ loop otherwise; cuDNN on CUDA).

Why ``torch._VF`` and not ``torch.func.functional_call`` on an ``nn.LSTM``: ``_VF.rnn_tanh`` and
``_VF.lstm`` are exactly the calls ``nn.RNN.forward`` / ``nn.LSTM.forward`` make, and they take the
weights as a list. ``functional_call`` would need a template module per size, and swapping new
weights into an ``nn.RNNBase`` makes its forward re-run ``flatten_parameters()``, whose
``_cudnn_rnn_flatten_weight`` on CUDA ``set_``s the passed tensors onto views of a fresh cuDNN buffer
(``set_orig_weights_to_flat_buf=True`` in ATen's cudnn/RNN.cpp), a side effect on a pure function's
inputs. With ``_VF``, cuDNN copies weights that are not one flat buffer into a temporary one per
call (ATen emits its "RNN module weights are not part of single contiguous chunk" UserWarning);
the models call their own ``nn.RNN`` / ``nn.LSTM`` modules, whose weights are flattened, instead.
``_VF`` is private API, so ``test_rnn.py`` checks the loops against ``nn.RNN`` / ``nn.LSTM`` modules
holding the same weights and the ``_VF`` calls against the loops.

Speed (2 CPU threads, fp32, B32 T128 D128 from D_in 32, medians of 15 interleaved runs): LSTM
fwd 15.2 / 4.7 ms (3.2×), fwd+bwd 44 / 16 ms (2.8×) for reference / native; Elman fwd 3.5-4.1 /
3.2-3.5 ms, fwd+bwd 14-15 / 13-15 ms: on CPU there is no oneDNN kernel for the tanh RNN, and ATen's
C++ loop is differentiated step by step like ours, so the Elman pair only pays off on CUDA (cuDNN).

Hand-worked example (Elman, D = 1): W_ih = 1, W_hh = 0, biases 0, x = (0.5, −0.5) gives
h = (tanh 0.5, tanh −0.5) = (0.4621, −0.4621).

Used in: bl2 (the LSTM baseline), models/rnn.py.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, _VF

from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["elman_native", "elman_sequential", "lstm_native", "lstm_sequential"]


def _train_flag(*tensors: Tensor) -> bool:
    """Whether a native kernel must keep what its backward needs (cuDNN refuses backward otherwise)."""
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


def elman_sequential(
    x: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor, h0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (the Elman RNN; ``nn.RNN(nonlinearity="tanh")``).

    The reference: the input projection of all steps is one matmul (it does not depend on h), then a
    loop over ``unbind(dim=1)`` adds the recurrent term and applies tanh.

    Args:
        x: (B, T, D_in) inputs.
        W_ih: (D, D_in), W_hh: (D, D), b_ih: (D,), b_hh: (D,): ``nn.RNN``'s ``*_l0`` parameters.
        h0: (B, D) initial state, or None for zeros.

    Returns:
        h: (B, T, D) every state; h_last: (B, D) the final state h_T.

    Used in: tests (ground truth for ``elman_native``), the ``elman`` model's reference backend.
    """
    B, D = x.shape[0], W_hh.shape[0]
    h = x.new_zeros(B, D) if h0 is None else h0  # (B, D)
    xw = F.linear(x, W_ih, b_ih)  # (B, T, D) W_ih x_t + b_ih for every t
    states = []
    for xw_t in xw.unbind(dim=1):  # (B, D)
        h = torch.tanh(xw_t + F.linear(h, W_hh, b_hh))  # (B, D)
        states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, D), (B, D)


def elman_native(
    x: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor, h0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh); torch's native kernel (``_VF.rnn_tanh``).

    Same contract as ``elman_sequential``. On CPU this is ATen's C++ loop (no oneDNN kernel exists
    for the tanh RNN), on CUDA cuDNN. Why it exists though it barely beats the loop on a CPU
    (2 threads, B32 T128 D128: forward+backward 18 vs 20 ms): on a GPU it is cuDNN's fused kernel.

    Returns:
        h: (B, T, D) every state; h_last: (B, D) the final state.

    Used in: benchmarks; the ``elman`` model calls its own ``nn.RNN`` (the same kernel).
    """
    B, D = x.shape[0], W_hh.shape[0]
    hx = x.new_zeros(1, B, D) if h0 is None else h0.unsqueeze(0).contiguous()  # (1, B, D); cuDNN wants contiguous
    train = _train_flag(x, W_ih, W_hh, b_ih, b_hh, h0)
    h, h_last = _VF.rnn_tanh(x, hx, [W_ih, W_hh, b_ih, b_hh], True, 1, 0.0, train, False, True)
    return h, h_last[0]  # (B, T, D), (B, D)


def lstm_sequential(
    x: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor,
    h0: Tensor | None = None, c0: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """c_t = σ(f_t) c_{t-1} + σ(i_t) tanh(g_t), h_t = σ(o_t) tanh(c_t), [i f g o] = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh.

    The LSTM of ``nn.LSTM`` (Hochreiter & Schmidhuber 1997 with forget gate), gates in PyTorch's order
    i, f, g, o along the 4·D axis. The reference: one matmul for the input projection of all steps,
    then a loop over ``unbind(dim=1)``.

    Args:
        x: (B, T, D_in) inputs.
        W_ih: (4·D, D_in), W_hh: (4·D, D), b_ih: (4·D,), b_hh: (4·D,): ``nn.LSTM``'s ``*_l0`` parameters.
        h0, c0: (B, D) initial hidden and cell state, or None for zeros.

    Returns:
        h: (B, T, D) every hidden state; h_last, c_last: (B, D) the final hidden and cell state.

    Used in: tests (ground truth for ``lstm_native``), the ``lstm`` model's reference backend.
    """
    B, D = x.shape[0], W_hh.shape[1]
    h = x.new_zeros(B, D) if h0 is None else h0  # (B, D)
    c = x.new_zeros(B, D) if c0 is None else c0  # (B, D)
    xw = F.linear(x, W_ih, b_ih)  # (B, T, 4·D) W_ih x_t + b_ih for every t
    states = []
    for xw_t in xw.unbind(dim=1):  # (B, 4·D)
        gates = xw_t + F.linear(h, W_hh, b_hh)  # (B, 4·D)
        i, f, g, o = gates.chunk(4, dim=-1)  # (B, D) each
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)  # (B, D)
        h = torch.sigmoid(o) * torch.tanh(c)  # (B, D)
        states.append(h)
    return torch.stack(states, dim=1), h, c  # (B, T, D), (B, D), (B, D)


def lstm_native(
    x: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor,
    h0: Tensor | None = None, c0: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """c_t = σ(f_t) c_{t-1} + σ(i_t) tanh(g_t), h_t = σ(o_t) tanh(c_t); torch's native kernel (``_VF.lstm``).

    Same contract as ``lstm_sequential``. On CPU fp32 (and bf16) this is oneDNN's LSTM, fp64 falls back
    to ATen's C++ loop; on CUDA cuDNN.

    Returns:
        h: (B, T, D); h_last, c_last: (B, D).

    Used in: benchmarks; the ``lstm`` model calls its own ``nn.LSTM`` (the same kernel).
    """
    B, D = x.shape[0], W_hh.shape[1]
    h0 = x.new_zeros(B, D) if h0 is None else h0  # (B, D)
    c0 = x.new_zeros(B, D) if c0 is None else c0  # (B, D)
    train = _train_flag(x, W_ih, W_hh, b_ih, b_hh, h0, c0)
    h, h_last, c_last = _VF.lstm(
        x, (h0.unsqueeze(0).contiguous(), c0.unsqueeze(0).contiguous()),  # (1, B, D) each; cuDNN wants contiguous
        [W_ih, W_hh, b_ih, b_hh], True, 1, 0.0, train, False, True,
    )
    return h, h_last[0], c_last[0]  # (B, T, D), (B, D), (B, D)


def _inputs(gates: int):
    def make(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
        """PyTorch's default init scale U(−1/√D, 1/√D) for weights and biases; a nonzero initial state."""
        B, D = size["B"], size["D"]
        d_in = size.get("d_in", D)
        f64 = dict(device=device, dtype=torch.float64, generator=gen)
        bound = D ** -0.5

        def uniform(*shape):
            return bound * (2 * torch.rand(*shape, **f64) - 1)

        x = torch.randn(B, T, d_in, **f64)  # (B, T, D_in)
        params = (uniform(gates * D, d_in), uniform(gates * D, D), uniform(gates * D), uniform(gates * D))
        states = tuple(0.5 * torch.randn(B, D, **f64) for _ in range(1 if gates == 1 else 2))  # (B, D) each
        return tuple(t.to(dtype) for t in (x, *params, *states))

    return make


_SIZES = {"cpu": {"B": 32, "T": 128, "D": 128, "d_in": 32}, "gpu": {"B": 256, "T": 500, "D": 256, "d_in": 256}}

register_pair(OpPair(
    name="elman", reference=elman_sequential, fast=elman_native, make_inputs=_inputs(1), sizes=_SIZES,
    why="torch's native tanh-RNN kernel (ATen C++ loop on CPU, cuDNN on CUDA) instead of a Python loop",
))
register_pair(OpPair(
    name="lstm", reference=lstm_sequential, fast=lstm_native, make_inputs=_inputs(4), sizes=_SIZES,
    state_output=2,
    why="torch's native LSTM kernel (oneDNN on CPU fp32, cuDNN on CUDA) instead of a Python loop",
))
