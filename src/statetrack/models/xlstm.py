"""xLSTM (Beck et al. 2024) as registered residual-stack models: ``mlstm`` = xLSTM[1:0], ``slstm`` = xLSTM[0:1].

NE Table 3 (App. E.1.1) compares both on parity and modular arithmetic: 2 blocks, D = 128,
4 heads for parity; embedding 64 and 1 head for modular arithmetic. Each model stacks one mixer type
in ``model.SequenceModel``'s pre-norm residual blocks (``x + mixer(LN(x))``, then the optional MLP).

**mLSTM block** (``MLSTMMixer``, the paper's pre-up-projection block, Fig. 10), per layer::

    x_m, z  = W_up x                                   (B, T, E·D) each, E = ``expand`` (paper: 2)
    x_c     = SiLU(causal_conv4(x_m))                  (B, T, E·D)
    q, k, v = W_q x_c, W_k x_c / √d, W_v x_m          (B, H, T, d), d = E·D/H
    ĩ, f̃    = w_i [q,k,v] + b_i,  w_f [q,k,v] + b_f    (B, H, T)
    h̃       = mLSTM cell (ops.mlstm_*): C_t = f_t C_{t−1} + i_t v_t k_tᵀ, n_t = f_t n_{t−1} + i_t k_t,
              h̃_t = C_t q_t / max(|n_tᵀ q_t|, 1), i = exp ĩ, f = σ(f̃) (or exp f̃), stabilized
    out     = W_down ((GN(h̃) + s ⊙ x_c) ⊙ SiLU(z))     (B, T, D), GN = per-head norm, s learnable skip

**sLSTM block** (``SLSTMMixer``, the post-up-projection block, Fig. 9)::

    x_c     = SiLU(causal_conv4(x))                    (B, T, D)
    ĩ, f̃    = W_i x_c + b_i, W_f x_c + b_f;  z̃, õ = W_z x + b_z, W_o x + b_o   (+ R_g h_{t−1}, per head)
    h       = sLSTM cell (ops.slstm_*): c_t = f_t c_{t−1} + i_t z_t, n_t = f_t n_{t−1} + i_t,
              h_t = o_t ⊙ c_t / n_t, i = exp, f = σ (or exp), z = tanh, o = σ, stabilized
    out     = GN(h)                                    (B, T, D); the block's MLP follows (mlp_ratio 2)

What we keep: the cell equations exactly (exponential input gate, σ or exp forget gate, normalizer
n_t, stabilizer m_t, the mLSTM max(|nᵀq|, 1) normalization, the sLSTM's block-diagonal recurrent
matrices in all four gates), the causal conv of width 4 with SiLU feeding q, k (mLSTM) or the i, f
gates (sLSTM), the per-head group norm, the mLSTM's learnable skip and SiLU(z) output gate, the
up-projection factor 2, and the official init of the gates (mLSTM: gate weights 0, forget bias
linspace(3, 6) over heads, input bias N(0, 0.1²); sLSTM: forget bias linspace(3, 6) over each
head's units, other biases 0). With ``forget_gate="exp"`` the forget bias is logsigmoid of those
values, so that both gates start from the same f ≈ 0.95..0.998 (3..6 under exp would be f > 1).

What we simplify:
- q, k, v (mLSTM) and W_g (sLSTM) are dense ``nn.Linear`` maps; the official code uses block-diagonal
  ("headwise", block size 4) projections. Dense contains block-diagonal, at more parameters.
- The mLSTM cell's own output gate o_t = σ(W_o x) is the block's SiLU(z) gate, as in the official code.
- The sLSTM block's gated GeLU FFN (factor 4/3) is the stack's plain GELU MLP with ``mlp_ratio`` 2,
  about the same parameter count (4D² vs 3·(4/3)D²); the mLSTM stack has no MLP (``mlp_ratio`` 0).
- sLSTM recurrent weights start from N(0, 2/(5d)) (xLSTM's "small_init") instead of the default
  zeros, and the forget bias uses the mLSTM's linspace(3, 6) instead of the "powerlaw" schedule.
- No dropout, no bias-free LayerNorm variants, no final post-block norm beyond the stack's own.

Glossary (paper → code): D → ``d_model``, H / NH → ``num_heads``, PF = 2 → ``expand``, conv1d kernel
→ ``d_conv``, ĩ/f̃ → ``i_gate``/``f_gate``, C/n/m → ``C``/``n``/``m``.

Used in: ne1-style Chomsky claims (NE Table 3: mLSTM, sLSTM rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.config import ConfigError, positive
from statetrack.models import register
from statetrack.models.layers import ShortConv
from statetrack.models.model import SequenceModel, StackConfig
from statetrack.models.ops.xlstm import mlstm_chunkwise, mlstm_recurrent, slstm_fused, slstm_sequential

Backend = Literal["fast", "reference"]
ForgetGate = Literal["sigmoid", "exp"]


# ----------------------------------------------------------------------------- shared pieces


def _conv_state(conv: ShortConv | None, batch: int, device, dtype):
    """The conv's step buffer (``ShortConv.init_state``: (B, C, W−1) zeros), or None without a conv."""
    return None if conv is None else conv.init_state(batch, device, dtype)


class HeadNorm(nn.Module):
    """Per-head layer norm with a learnable scale and no bias (xLSTM's ``MultiHeadLayerNorm``)."""

    def __init__(self, num_heads: int, head_dim: int):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, head_dim
        self.weight = nn.Parameter(torch.ones(num_heads * head_dim))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """h (..., H, d) → normalised per head, flattened to (..., H·d)."""
        y = F.layer_norm(h, (self.head_dim,))  # (..., H, d)
        return y.flatten(-2) * self.weight  # (..., H·d)


def _forget_bias(sigmoid_bias: torch.Tensor, forget_gate: str) -> torch.Tensor:
    """The forget-gate bias giving f = σ(sigmoid_bias) at zero input under either gate.

    xLSTM's linspace(3, 6) is meant for f = σ(f̃) (f ≈ 0.95..0.998). Used as is under f = exp(f̃) it would
    start every memory at f = e³..e⁶ > 1, an exponentially growing state; logsigmoid maps it to the same
    initial f (bias ≈ −0.049..−0.0025).
    """
    return sigmoid_bias if forget_gate == "sigmoid" else F.logsigmoid(sigmoid_bias)


def _check_forget_gate(forget_gate: str) -> None:
    if forget_gate not in ("sigmoid", "exp"):
        raise ValueError(f"forget_gate {forget_gate!r} is not allowed; allowed: 'sigmoid', 'exp'")


# ----------------------------------------------------------------------------- mLSTM


class MLSTMMixer(nn.Module):
    """The mLSTM layer of xLSTM's pre-up-projection block (module docstring); C_t = f_t C_{t−1} + i_t v_t k_tᵀ."""

    def __init__(self, d_model: int, num_heads: int, expand: int = 2, d_conv: int = 4,
                 forget_gate: str = "sigmoid", backend: str = "fast", chunk_size: int = 64):
        super().__init__()
        inner = expand * d_model
        if inner % num_heads:
            raise ValueError(f"num_heads={num_heads} must divide expand·d_model={inner}")
        _check_forget_gate(forget_gate)
        self.num_heads, self.head_dim, self.inner = num_heads, inner // num_heads, inner
        self.forget_gate, self.backend, self.chunk_size = forget_gate, backend, chunk_size
        self.up = nn.Linear(d_model, 2 * inner, bias=False)
        self.conv = ShortConv(inner, d_conv) if d_conv > 0 else None
        self.q_proj = nn.Linear(inner, inner, bias=False)
        self.k_proj = nn.Linear(inner, inner, bias=False)
        self.v_proj = nn.Linear(inner, inner, bias=False)
        self.i_gate = nn.Linear(3 * inner, num_heads)
        self.f_gate = nn.Linear(3 * inner, num_heads)
        self.norm = HeadNorm(num_heads, self.head_dim)
        self.skip = nn.Parameter(torch.ones(inner))
        self.down = nn.Linear(inner, d_model, bias=False)
        with torch.no_grad():  # the official mLSTMCell init
            self.i_gate.weight.zero_()
            self.i_gate.bias.normal_(0.0, 0.1)
            self.f_gate.weight.zero_()
            self.f_gate.bias.copy_(_forget_bias(torch.linspace(3.0, 6.0, num_heads), forget_gate))

    def _project(self, x_c: torch.Tensor, x_m: torch.Tensor):
        """q, k (scaled), v in (..., H, d) and ĩ, log f in (..., H), from x_c, x_m (..., E·D) (any leading dims)."""
        q, k, v = self.q_proj(x_c), self.k_proj(x_c), self.v_proj(x_m)  # (..., E·D) each
        gate_in = torch.cat([q, k, v], dim=-1)  # (..., 3·E·D)
        i_pre = self.i_gate(gate_in)  # (..., H)
        f_pre = self.f_gate(gate_in)  # (..., H)
        log_f = F.logsigmoid(f_pre) if self.forget_gate == "sigmoid" else f_pre  # (..., H)
        shape = (*q.shape[:-1], self.num_heads, self.head_dim)
        k = k.view(shape) / math.sqrt(self.head_dim)  # (..., H, d)
        return q.view(shape), k, v.view(shape), i_pre, log_f

    def _output(self, h: torch.Tensor, x_c: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        y = self.norm(h) + self.skip * x_c  # (..., E·D)
        return self.down(y * F.silu(z))  # (..., D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_m, z = self.up(x).chunk(2, dim=-1)  # (B, T, E·D) each
        x_c = self.conv(x_m) if self.conv is not None else F.silu(x_m)  # (B, T, E·D)
        q, k, v, i_pre, log_f = self._project(x_c, x_m)  # (B, T, H, d) ×3, (B, T, H) ×2
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, T, d) each
        i_pre, log_f = i_pre.transpose(1, 2), log_f.transpose(1, 2)  # (B, H, T) each
        if self.backend == "fast":
            h = mlstm_chunkwise(q, k, v, i_pre, log_f, chunk_size=self.chunk_size)[0]  # (B, H, T, d)
        else:
            h = mlstm_recurrent(q, k, v, i_pre, log_f)[0]  # (B, H, T, d)
        return self._output(h.transpose(1, 2), x_c, z)  # (B, T, D)

    def init_state(self, batch: int, device, dtype):
        """(conv buffer (B, E·D, W−1) or None, C (B, H, d, d), n (B, H, d), m (B, H) = −∞): the empty state."""
        H, d = self.num_heads, self.head_dim
        return (_conv_state(self.conv, batch, device, dtype),
                torch.zeros(batch, H, d, d, device=device, dtype=dtype),
                torch.zeros(batch, H, d, device=device, dtype=dtype),
                torch.full((batch, H), -math.inf, device=device, dtype=dtype))

    def step(self, x: torch.Tensor, state):
        """x (B, D), state → (B, D), the next state; the stabilized recurrence for one step."""
        buf, C, n, m = state
        x_m, z = self.up(x).chunk(2, dim=-1)  # (B, E·D) each
        if self.conv is not None:
            x_c, buf = self.conv.step(x_m, buf)  # (B, E·D)
        else:
            x_c = F.silu(x_m)  # (B, E·D)
        q, k, v, i_pre, log_f = self._project(x_c, x_m)  # (B, H, d) ×3, (B, H) ×2
        h, C, n, m = mlstm_recurrent(q.unsqueeze(2), k.unsqueeze(2), v.unsqueeze(2), i_pre.unsqueeze(2),
                                     log_f.unsqueeze(2), C, n, m)  # (B, H, 1, d)
        return self._output(h.squeeze(2), x_c, z), (buf, C, n, m)  # (B, D)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The scalar decay f_t of each head's memory C (its only transition eigenvalue): (B, T, H), real."""
        x_m, _ = self.up(x).chunk(2, dim=-1)  # (B, T, E·D)
        x_c = self.conv(x_m) if self.conv is not None else F.silu(x_m)  # (B, T, E·D)
        return self._project(x_c, x_m)[4].exp()  # (B, T, H)


# ----------------------------------------------------------------------------- sLSTM


class SLSTMMixer(nn.Module):
    """The sLSTM layer of xLSTM's post-up-projection block (module docstring); c_t = f_t c_{t−1} + i_t z_t."""

    def __init__(self, d_model: int, num_heads: int, d_conv: int = 4, forget_gate: str = "sigmoid",
                 backend: str = "fast"):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"num_heads={num_heads} must divide d_model={d_model}")
        _check_forget_gate(forget_gate)
        self.num_heads, self.head_dim = num_heads, d_model // num_heads
        self.forget_gate, self.backend = forget_gate, backend
        self.conv = ShortConv(d_model, d_conv) if d_conv > 0 else None
        self.if_proj = nn.Linear(d_model, 2 * d_model)  # W_i, W_f and b_i, b_f (from the conv branch)
        self.zo_proj = nn.Linear(d_model, 2 * d_model)  # W_z, W_o and b_z, b_o
        d = self.head_dim
        self.R = nn.Parameter(torch.randn(4, num_heads, d, d) * math.sqrt(2 / (5 * d)))  # (4, H, d, d)
        self.norm = HeadNorm(num_heads, d)
        with torch.no_grad():
            self.if_proj.bias.zero_()
            self.zo_proj.bias.zero_()
            self.if_proj.bias[d_model:].copy_(_forget_bias(torch.linspace(3.0, 6.0, d).repeat(num_heads), forget_gate))

    def _inputs(self, x: torch.Tensor, x_c: torch.Tensor) -> torch.Tensor:
        """The input part of the pre-activations, gates (i, f, z, o): (..., 4, H, d)."""
        shape = (*x.shape[:-1], 2, self.num_heads, self.head_dim)
        u_if = self.if_proj(x_c).view(shape)  # (..., 2, H, d)
        u_zo = self.zo_proj(x).view(shape)  # (..., 2, H, d)
        return torch.cat([u_if, u_zo], dim=-3)  # (..., 4, H, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_c = self.conv(x) if self.conv is not None else x  # (B, T, D)
        u = self._inputs(x, x_c)  # (B, T, 4, H, d)
        cell = slstm_fused if self.backend == "fast" else slstm_sequential
        h = cell(u, self.R, forget_gate=self.forget_gate)[0]  # (B, T, H, d)
        return self.norm(h)  # (B, T, D)

    def init_state(self, batch: int, device, dtype):
        """(conv buffer (B, D, W−1) or None, h, c, n (B, H, d) zeros, m (B, H, d) = −∞): the empty state."""
        zeros = [torch.zeros(batch, self.num_heads, self.head_dim, device=device, dtype=dtype) for _ in range(3)]
        m = torch.full((batch, self.num_heads, self.head_dim), -math.inf, device=device, dtype=dtype)
        return (_conv_state(self.conv, batch, device, dtype), *zeros, m)

    def step(self, x: torch.Tensor, state):
        """x (B, D), state → (B, D), the next state."""
        buf, h, c, n, m = state
        if self.conv is not None:
            x_c, buf = self.conv.step(x, buf)  # (B, D)
        else:
            x_c = x  # (B, D)
        u = self._inputs(x, x_c).unsqueeze(1)  # (B, 1, 4, H, d)
        _, h, c, n, m = slstm_sequential(u, self.R, h, c, n, m, forget_gate=self.forget_gate)  # (B, H, d) each
        return self.norm(h), (buf, h, c, n, m)  # (B, D)


# ----------------------------------------------------------------------------- configs and models


def _check_common(cfg, width: int, width_name: str) -> None:
    positive(cfg, "num_heads")
    if width % cfg.num_heads:
        raise ConfigError(
            f"{cfg._prefix()}num_heads={cfg.num_heads} does not divide {width_name}={width}; "
            f"allowed: a divisor of {width}"
        )
    if cfg.d_conv < 0:
        raise ConfigError(f"{cfg._prefix()}d_conv={cfg.d_conv!r} is not allowed: it must be >= 0")


def _label(name: str, forget_gate: str) -> str:
    return name if forget_gate == "sigmoid" else f"{name}-expf"


@dataclass(frozen=True)
class MLSTMConfig(StackConfig):
    """xLSTM[1:0]: a stack of mLSTM blocks. Paper symbols: D = d_model, NH = num_heads, PF = expand.

    Fields: ``num_heads`` NH (must divide expand·D; NE: 4 for parity, 1 for modular arithmetic);
    ``expand`` the up-projection factor PF (xLSTM: 2); ``d_conv`` the causal conv width feeding q, k
    (xLSTM: 4; 0 = none); ``forget_gate`` "sigmoid" (xLSTM's default) or "exp"; ``mlp_ratio`` 0 (the
    pre-up-projection block has no MLP); ``backend`` "fast" (chunkwise-parallel) or "reference" (the
    step-by-step stabilized recurrence; identical up to rounding).
    """

    name: ClassVar[str] = "mlstm"
    display_names: ClassVar[dict[str, str]] = {"mlstm": "mLSTM"}
    colors: ClassVar[dict[str, str]] = {"mlstm": "#DA8BC3"}
    activation_floats: ClassVar[tuple[float, float, float]] = (108.0, 88.0, 0.5)
    transition: ClassVar[str] = "positive_diagonal"
    transition_param: ClassVar[int | None] = None
    transition_reader: ClassVar[str | None] = None
    transition_note: ClassVar[str] = "a positive scalar forget gate per head times the matrix memory"
    mlp_ratio: int = 0
    num_heads: int = 4
    expand: int = 2
    d_conv: int = 4
    forget_gate: ForgetGate = "sigmoid"
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "expand")
        _check_common(self, self.expand * self.d_model, "expand·d_model")

    @property
    def label(self) -> str:
        return _label(self.name, self.forget_gate)

    @property
    def contractive_exact(self) -> bool:
        return self.forget_gate == "sigmoid"  # a sigmoid gate lies in (0, 1); an exponential one may exceed 1


@dataclass(frozen=True)
class SLSTMConfig(StackConfig):
    """xLSTM[0:1]: a stack of sLSTM blocks. Paper symbols: D = d_model, NH = num_heads.

    Fields: ``num_heads`` NH, the number of diagonal blocks of the recurrent matrices (must divide D;
    NE: 4 for parity, 1 for modular arithmetic); ``d_conv`` the causal conv width feeding the i and f
    gates (xLSTM: 4; 0 = none); ``forget_gate`` "sigmoid" or "exp"; ``mlp_ratio`` the MLP after each
    sLSTM (2 ≈ xLSTM's gated FFN with factor 4/3); ``backend`` "fast" (one fused matmul per step) or
    "reference" (gate by gate; identical up to rounding).
    """

    name: ClassVar[str] = "slstm"
    display_names: ClassVar[dict[str, str]] = {"slstm": "sLSTM"}
    colors: ClassVar[dict[str, str]] = {"slstm": "#8172B3"}
    activation_floats: ClassVar[tuple[float, float, float]] = (42.4, 32.2, 0.5)
    transition: ClassVar[str] = "nonlinear"
    transition_param: ClassVar[int | None] = None
    transition_reader: ClassVar[str | None] = None
    contractive_exact: ClassVar[bool] = False
    transition_note: ClassVar[str] = ""
    mlp_ratio: int = 2
    num_heads: int = 4
    d_conv: int = 4
    forget_gate: ForgetGate = "sigmoid"
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        _check_common(self, self.d_model, "d_model")

    @property
    def label(self) -> str:
        return _label(self.name, self.forget_gate)


@register
class MLSTM(SequenceModel):
    Config = MLSTMConfig

    def make_mixer(self, cfg: MLSTMConfig) -> MLSTMMixer:
        return MLSTMMixer(cfg.d_model, cfg.num_heads, cfg.expand, cfg.d_conv, cfg.forget_gate, cfg.backend)


@register
class SLSTM(SequenceModel):
    Config = SLSTMConfig

    def make_mixer(self, cfg: SLSTMConfig) -> SLSTMMixer:
        return SLSTMMixer(cfg.d_model, cfg.num_heads, cfg.d_conv, cfg.forget_gate, cfg.backend)
