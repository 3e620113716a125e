"""x_t = P(u_t) D(u_t) x_{t−1} + B u_t: PD-SSM as a registered model, ``pd_ssm`` (Terzić et al., 2025, §3).

The transition is a column-one-hot P(u_t) (each column exactly one 1, chosen from u_t) times a complex
diagonal D(u_t) with |D| < 1. By PD-SSM Prop 2 one such layer with N ≥ |Q| states represents any
automaton with |Q| states (P is the letter's transition function on one-hot states, D = 1); and the
scan composes these maps in O(N) (``ops.pd``). Because |D| = sigmoid(·) < 1, every transition is
strictly contractive in exact arithmetic (spectral radius ≤ max_j |D_j|), so at very long lengths a
periodic state survives only where the sigmoid rounds to 1.

How the layer makes P and D from its input u_t ∈ ℝ^D (PD-SSM §3.1, Eqs. 1–5)::

    s_t     = softmax(W_S u_t)                          (B, T, K) weights over a dictionary of K matrices
    M_t     = Σ_k s_{t,k} M_k                            (B, T, N, N), M_k learned, init N(0, 1/N)
    P_t     = hardmax over each column of M_t           (B, T, N, N) column one-hot, in the forward pass
    ∂P/∂M   ≈ ∂ softmax_col(M)/∂M                       the straight-through estimator (temperature 1, no noise)
    |D_t|   = sigmoid(MLP_mag(u_t)),  φ_t = 2π sigmoid(MLP_phase(u_t))     (B, T, N), GELU MLPs
    x_t     = P_t (|D_t| e^{iφ_t} ⊙ x_{t−1}) + (B_re + i B_im) u_t         (B, T, N) complex
    y_t     = W_read [Re x_t, Im x_t] + b                                   (B, T, D), linear readout

Choices (ours, where the paper leaves room or differs between its codes): the block is the package's
pre-norm residual block (``model.SequenceModel``; the paper's block is post-norm with a D-skip, which
the residual path replaces); no MLP after the mixer by default (``mlp_ratio = 0``, as the paper's
state-tracking model); the initial state x_0 = e_1 (the paper's PyTorch code) or 0 (its JAX code),
by ``init_state``; B's entries N(0, 1/(2N)).

Used in: the follow-up leaderboard rows (``theory.predictions``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.config import positive
from statetrack.models import register
from statetrack.models.model import SATURATES, SequenceModel, StackConfig
from statetrack.models.ops import pd as pd_ops

Backend = Literal["fast", "reference"]
InitState = Literal["e1", "zero"]


class PDMixer(nn.Module):
    """x_t = P(u_t) D(u_t) x_{t−1} + B u_t, y_t = W_read [Re x_t, Im x_t] + b (PD-SSM §3; see the module docstring).

    ``forward`` (B, T, D) → (B, T, D); ``step`` one token; the state is (x,) with x (B, N, 2), the
    complex state as (re, im). ``backend``: "fast" (``ops.pd_scan``) or "reference" (``ops.pd_sequential``).
    """

    def __init__(self, d_model: int, d_state: int, dict_size: int, gate_hidden: int, init_state: str,
                 backend: str = "fast"):
        super().__init__()
        N, hidden = d_state, gate_hidden or d_model
        self.d_state, self.backend, self.init_kind = N, backend, init_state
        self.select = nn.Linear(d_model, dict_size, bias=False)  # W_S
        self.dictionary = nn.Parameter(torch.randn(dict_size, N, N) / math.sqrt(N))  # (K, N, N) M_k
        self.mag = nn.Sequential(nn.Linear(d_model, hidden), nn.GELU(), nn.Linear(hidden, N))  # |D| logits
        self.phase = nn.Sequential(nn.Linear(d_model, hidden), nn.GELU(), nn.Linear(hidden, N))  # φ logits
        self.in_proj = nn.Linear(d_model, 2 * N, bias=False)  # [B_re; B_im]
        nn.init.normal_(self.in_proj.weight, std=1 / math.sqrt(2 * N))
        self.readout = nn.Linear(2 * N, d_model)  # W_read, b

    def _ops(self):
        return pd_ops.pd_scan if self.backend == "fast" else pd_ops.pd_sequential

    def structure(self, u: torch.Tensor) -> torch.Tensor:
        """P(u): (..., D) → (..., N, N), column one-hot in value, with the softmax straight-through gradient."""
        s = torch.softmax(self.select(u), dim=-1)  # (..., K)
        M = torch.einsum("...k,kij->...ij", s, self.dictionary)  # (..., N, N)
        soft = torch.softmax(M, dim=-2)  # (..., N, N) each column a distribution over rows
        hard = F.one_hot(M.argmax(dim=-2), self.d_state).transpose(-1, -2).to(M.dtype)  # (..., N, N)
        return hard + (soft - soft.detach())  # (..., N, N) exactly ``hard`` in value

    def _inputs(self, u: torch.Tensor):
        """P (..., N, N), |D| (..., N), φ (..., N) and B u (..., N, 2) for inputs u (..., D)."""
        r = torch.sigmoid(self.mag(u))  # (..., N)
        theta = 2 * math.pi * torch.sigmoid(self.phase(u))  # (..., N)
        b = self.in_proj(u).unflatten(-1, (2, self.d_state)).transpose(-1, -2)  # (..., N, 2)
        return self.structure(u), r, theta, b

    def _read(self, h: torch.Tensor) -> torch.Tensor:
        return self.readout(h.flatten(-2))  # (..., D) from (..., N, 2): (re, im) of each entry

    def init_state(self, batch: int, device=None, dtype=torch.float32) -> tuple[torch.Tensor]:
        """(x,) with x (B, N, 2): e_1 (x = 1 + 0i in entry 0) or zeros, by ``init_state``."""
        h = torch.zeros(batch, self.d_state, 2, device=device, dtype=dtype)  # (B, N, 2)
        if self.init_kind == "e1":
            h[:, 0, 0] = 1
        return (h,)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        P, r, theta, b = self._inputs(x)  # (B, T, N, N), (B, T, N), (B, T, N), (B, T, N, 2)
        h0 = self.init_state(x.shape[0], x.device, x.dtype)[0] if self.init_kind == "e1" else None  # (B, N, 2)
        h, _ = self._ops()(P, r, theta, b, h0)  # (B, T, N, 2)
        return self._read(h)  # (B, T, D)

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor]):
        """One token: x (B, D) → (B, D) and the next state, by one step of the dense reference."""
        P, r, theta, b = self._inputs(x.unsqueeze(1))  # (B, 1, N, N), (B, 1, N) ×2, (B, 1, N, 2)
        _, h = pd_ops.pd_sequential(P, r, theta, b, state[0])  # (B, N, 2)
        return self._read(h), (h,)  # (B, D)

    def transition_matrices(self, x: torch.Tensor) -> torch.Tensor:
        """A(u_t) = P(u_t) D(u_t) built densely: (B, T, N, N) complex (for tests and plots)."""
        P, r, theta, _ = self._inputs(x)  # (B, T, N, N), (B, T, N), (B, T, N)
        d = torch.complex(r * torch.cos(theta), r * torch.sin(theta))  # (B, T, N)
        return P.to(d.dtype) * d.unsqueeze(-2)  # (B, T, N, N) column j scaled by D_j

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The N eigenvalues of A(u_t) = P D: (B, T, N), complex; all of modulus ≤ max_j |D_j| < 1."""
        A = self.transition_matrices(x)  # (B, T, N, N)
        ev = torch.linalg.eigvals(A.to(torch.complex128))  # (B, T, N)
        return ev.to(A.dtype)


@dataclass(frozen=True)
class PDSSMConfig(StackConfig):
    """A(u_t) = P(u_t) D(u_t): PD-SSM's config. Paper symbols: D = d_model, N = d_state, K = dict_size.

    Fields: ``d_state`` N, the complex state size (PD-SSM Prop 2: N ≥ the automaton's states);
    ``dict_size`` K, the number of dictionary matrices M_k whose softmax mixture is hardmaxed into P
    (the paper: 8 for its automata, 32 for A5/S5, 6 elsewhere); ``gate_hidden`` width of the GELU MLPs
    giving |D| and φ (0 = D); ``init_state`` "e1" (x_0 = e_1) or "zero"; ``backend`` "fast" (log-depth
    scan) or "reference" (dense loop); ``mlp_ratio`` as every stack, 0 by default here.
    """

    name: ClassVar[str] = "pd_ssm"
    display_names: ClassVar[dict[str, str]] = {"pd_ssm": "PD-SSM"}
    colors: ClassVar[dict[str, str]] = {"pd_ssm": "#A0A0A0"}
    transition: ClassVar[str] = "permutation_diagonal"
    transition_reader: ClassVar[str | None] = None  # spectra reads no A(x) of it yet
    contractive_exact: ClassVar[bool] = True
    transition_note: ClassVar[str] = "spectral radius ≤ max |D| = sigmoid(·) < 1; " + SATURATES
    mlp_ratio: int = 0
    d_state: int = 16
    dict_size: int = 8
    gate_hidden: int = 0
    init_state: InitState = "e1"
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "d_state", "dict_size")
        if self.gate_hidden < 0:
            # waits for a planned retrain: hoisting it changes the code hash the records read (no cycle)
            from statetrack.config import ConfigError

            raise ConfigError(f"{self._prefix()}gate_hidden={self.gate_hidden!r} is not allowed: it must be >= 0")

    @property
    def label(self) -> str:
        return f"pd_ssm-N{self.d_state}"

    @property
    def transition_param(self) -> int:
        return self.d_state  # N ≥ |Q| states emulate a |Q|-state automaton


@register
class PDSSM(SequenceModel):
    Config = PDSSMConfig

    def make_mixer(self, cfg: PDSSMConfig):
        return PDMixer(cfg.d_model, cfg.d_state, cfg.dict_size, cfg.gate_hidden, cfg.init_state, cfg.backend)
