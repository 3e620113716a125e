"""A GPT-2-style decoder-only Transformer, registered as ``transformer`` (the baseline with no recurrence).

Architecture (Radford et al. 2019; nanoGPT's layout), built on ``model.SequenceModel``::

    x = embed(tokens) + pos(t)                    # learned absolute positions, or none with rotary
    x = x + attn(LN(x))                           # causal multi-head self-attention, H = num_heads
    x = x + MLP(LN(x))                            # Linear(D, r·D) → GELU → Linear(r·D, D), r = mlp_ratio
    logits = head(LN(x))                          # per-token K-way head (see model.py)

``positions="learned"`` is GPT-2's table of ``max_len`` position vectors; ``"rotary"`` rotates q and k
by position (RoPE, Su et al. 2021; the rotate-half form of GPT-NeoX/Llama, base 10000) and has no
length limit. No dropout (synthetic tasks). Initialisation is GPT-2's: N(0, 0.02) weights, zero
biases, and residual output projections scaled by 1/√(2L).

Which the papers used:

- NE (Grazzi et al., Table 3): the Transformer row comes from the xLSTM formal-language setup
  (Beck et al. 2024), which our design notes describe as a GPT-2-style decoder; the position scheme it
  used is not stated by either paper, so ``learned`` here is our choice, stated in the claim notebook.
- BL's follow-up (arXiv 2602.18333): a GPT-2-architecture Transformer, 6 layers, d = 256 [P], i.e.
  learned absolute positions.

Learned positions cannot extrapolate: evaluating at a length beyond ``max_len`` raises an error
naming the length. An out-of-distribution length sweep therefore needs ``max_len`` ≥ the longest test
length (default 512, above the default eval range 40–256); NE-style length generalisation is exactly
where this baseline is expected to fail.

``backend``: "fast" = ``F.scaled_dot_product_attention``, "reference" = the explicit
softmax(QKᵀ/√d + M)V (``ops.attention``). ``init_state``/``step`` decode one token at a time with a
key-value cache; a rollout equals ``forward``.

Used in: ne1 (Transformer row of NE Table 3), bl1/bl2 (GPT-2 baseline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn

from statetrack.config import ConfigError, positive
from statetrack.models import register
from statetrack.models.ops import attention as attention_ops
from statetrack.models.model import SequenceModel, StackConfig

__all__ = ["TransformerConfig", "Transformer", "CausalSelfAttention", "rotary"]


@dataclass(frozen=True)
class TransformerConfig(StackConfig):
    """GPT-2-style decoder. Paper symbols: D = d_model, L = num_layers, H = num_heads.

    Fields: ``num_heads`` H (must divide D; head width D/H, even for rotary); ``mlp_ratio`` r (MLP
    width r·D; GPT-2 uses 4); ``positions`` "learned" (GPT-2's absolute table, BL's follow-up) or
    "rotary" (RoPE); ``max_len`` the number of learned positions, the longest sequence the model
    accepts with learned positions (must cover the longest evaluation length; ignored by rotary);
    ``backend`` "fast" (SDPA) or "reference" (explicit softmax attention).
    """

    name: ClassVar[str] = "transformer"
    display_names: ClassVar[dict[str, str]] = {"transformer": "Transformer"}
    colors: ClassVar[dict[str, str]] = {"transformer": "#555555"}
    activation_floats: ClassVar[tuple[float, float, float]] = (24.1, 19.5, 0.5)
    transition: ClassVar[str] = "attention"
    transition_param: ClassVar[int | None] = None
    transition_reader: ClassVar[str | None] = None
    contractive_exact: ClassVar[bool] = False
    transition_note: ClassVar[str] = ""
    num_heads: int = 4
    mlp_ratio: int = 4
    positions: Literal["learned", "rotary"] = "learned"
    max_len: int = 512
    backend: Literal["fast", "reference"] = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "num_heads", "max_len")
        if self.d_model % self.num_heads:
            raise ConfigError(
                f"{self._prefix()}num_heads={self.num_heads} does not divide d_model={self.d_model}; "
                f"allowed: a divisor of {self.d_model}"
            )
        if self.positions == "rotary" and (self.d_model // self.num_heads) % 2:
            raise ConfigError(
                f"{self._prefix()}positions='rotary' needs an even head width, got d_model/num_heads = "
                f"{self.d_model // self.num_heads}"
            )

    def check_lengths(self, longest: int) -> None:
        if self.positions == "learned" and longest > self.max_len:
            raise ConfigError(
                f"{self._prefix()}max_len={self.max_len} is shorter than the longest sequence of this run "
                f"({longest}); learned positions cannot extrapolate: set model.max_len >= {longest} or "
                "model.positions=rotary"
            )

    @property
    def label(self) -> str:
        return f"transformer-{self.positions}"


def rotary(x: torch.Tensor, start: int = 0, base: float = 10000.0) -> torch.Tensor:
    """RoPE (Su et al. 2021, Eq. 34, rotate-half form): rotate pair (x_i, x_{i+d/2}) by angle p·base^(−2i/d).

    Args:
        x: (B, H, T, d) queries or keys, d even; position of row t is ``start + t``.
        start: the position of the first row (the cache length when decoding).

    Returns:
        (B, H, T, d), same dtype. Angles are computed in fp64 when x is fp64, else fp32.
    """
    T, d = x.shape[-2], x.shape[-1]
    ft = torch.float64 if x.dtype == torch.float64 else torch.float32
    inv_freq = base ** (-torch.arange(0, d // 2, device=x.device, dtype=ft) * 2 / d)  # (d/2,)
    pos = torch.arange(start, start + T, device=x.device, dtype=ft)  # (T,)
    angle = pos[:, None] * inv_freq[None, :]  # (T, d/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)  # (T, d/2) each
    x1, x2 = x[..., : d // 2], x[..., d // 2:]  # (B, H, T, d/2) each
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)  # (B, H, T, d)


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention (GPT-2's ``c_attn`` / ``c_proj``), optionally with RoPE.

    The state for ``step`` is the key-value cache ``(K, V)``, each (B, H, t, d) after t tokens; the
    position of the next token is t.
    """

    _ATTEND: ClassVar[dict] = {"fast": attention_ops.causal_attention,
                               "reference": attention_ops.causal_attention_reference}

    def __init__(self, d_model: int, num_heads: int, use_rotary: bool, backend: str = "fast"):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"num_heads={num_heads} must divide d_model={d_model}")
        if backend not in self._ATTEND:
            raise ValueError(f"backend {backend!r} is not allowed; allowed: {sorted(self._ATTEND)}")
        self.num_heads, self.head_dim, self.use_rotary = num_heads, d_model // num_heads, use_rotary
        self.backend = backend
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def _attend(self, q, k, v, causal: bool = True) -> torch.Tensor:
        return self._ATTEND[self.backend](q, k, v, causal=causal)  # (B, H, T, d)

    def _qkv(self, x: torch.Tensor, start: int):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (B, H, T, d) ×3
        if self.use_rotary:
            q, k = rotary(q, start), rotary(k, start)  # (B, H, T, d) each
        return q, k, v

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        q, k, v = self._qkv(x, 0)  # (B, H, T, d) each
        o = self._attend(q, k, v)  # (B, H, T, d)
        return self.proj(o.transpose(1, 2).reshape(B, T, D))  # (B, T, D)

    def init_state(self, batch: int, device=None, dtype=torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        """An empty key-value cache: K, V each (B, H, 0, d)."""
        empty = torch.zeros(batch, self.num_heads, 0, self.head_dim, device=device, dtype=dtype)
        return empty, empty.clone()

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        """One token: x (B, D) → (B, D); appends this token's key and value to the cache."""
        K, V = state  # (B, H, t, d) each
        q, k, v = self._qkv(x.unsqueeze(1), K.shape[2])  # (B, H, 1, d) each
        K, V = torch.cat([K, k], dim=2), torch.cat([V, v], dim=2)  # (B, H, t+1, d) each
        o = self._attend(q, K, V, causal=False)  # (B, H, 1, d): every cached key is in the past
        return self.proj(o.transpose(1, 2).reshape(x.shape)), (K, V)  # (B, D)


@register
class Transformer(SequenceModel):
    """Token ids (B, T) → logits (B, T, K) with a GPT-2-style decoder (see the module docstring)."""

    Config = TransformerConfig

    def __init__(self, cfg: TransformerConfig, vocab_size: int, num_classes: int):
        super().__init__(cfg, vocab_size, num_classes)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model) if cfg.positions == "learned" else None
        self._init_gpt2()

    def make_mixer(self, cfg: TransformerConfig) -> nn.Module:
        return CausalSelfAttention(cfg.d_model, cfg.num_heads, cfg.positions == "rotary", cfg.backend)

    def _init_gpt2(self) -> None:
        """GPT-2: N(0, 0.02) for weights and embeddings, zero biases, residual projections × 1/√(2L)."""
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)
        scaled = 0.02 / math.sqrt(2 * self.cfg.num_layers)
        for block in self.blocks:
            nn.init.normal_(block.mixer.proj.weight, mean=0.0, std=scaled)
            if block.mlp is not None:
                nn.init.normal_(block.mlp.down.weight, mean=0.0, std=scaled)

    def _check_length(self, length: int) -> None:
        if self.pos is not None and length > self.cfg.max_len:
            raise ValueError(
                f"sequence length {length} exceeds max_len={self.cfg.max_len} of the learned positions; "
                f"set model.max_len >= {length} (an out-of-distribution length evaluation needs max_len >= "
                f"the longest test length; the default is 512) or use model.positions=rotary"
            )

    def _embed(self, tokens: torch.Tensor, start: int) -> torch.Tensor:
        x = self.embed(tokens)  # (B, T, D) or (B, D)
        if self.pos is None:
            return x
        T = tokens.shape[1] if tokens.dim() == 2 else 1
        self._check_length(start + T)
        p = self.pos(torch.arange(start, start + T, device=tokens.device))  # (T, D)
        return x + (p if tokens.dim() == 2 else p[0])  # (B, T, D) or (B, D)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self._embed(tokens, 0)  # (B, T, D)
        for block in self.blocks:
            x = block(x)  # (B, T, D)
        return self.head(self.norm(x))  # (B, T, K)

    def step(self, tokens: torch.Tensor, state: list) -> tuple[torch.Tensor, list]:
        """One token per sequence: tokens (B,) → logits (B, K); the state is one KV cache per layer."""
        x = self._embed(tokens, state[0][0].shape[2])  # (B, D) at position t = cache length
        new = []
        for block, s in zip(self.blocks, state):
            x, s = block.step(x, s)  # (B, D)
            new.append(s)
        return self.head(self.norm(x)), new  # (B, K)

    def transition_eigenvalues(self, tokens: torch.Tensor):
        raise NotImplementedError("the Transformer has no state-transition matrix A(x_t); it is not a linear RNN")
