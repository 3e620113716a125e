"""The BL paper's bilinear RNN family as one registered model, ``bilinear`` (BL §2; book/papers.md).

One layer, no residual stack: token → transition → state → bias-free linear head at every position::

    h_0 = h0 / ‖h0‖                                     learned h0 (H,)
    h_t = A(x_t) h_{t−1}  (+ B x_t + b if additive)     A(x) = Σ_k W_k x_k, x_t = onehot(token) or E[token]
    h_t ← h_t / ‖h_t‖                                   if normalize == "every_step"
    logits_t = R h_t                                    R (K, H), no bias

``variant`` picks the structure of A(x) (BL's hierarchy, most to least expressive):

| variant    | A(x)                                       | parameters (D = input width) | can represent (BL Props. 1–3) |
|------------|--------------------------------------------|------------------------------|-------------------------------|
| "full"     | Σ_k W_k x_k, a full H×H matrix             | W (D, H, H): H²D             | any FSM with ≤ H states       |
| "cp"       | U diag(Wᵀx) Vᵀ, rank R                     | U, V (H, R), W (D, R)        | rank-limited FSMs             |
| "block"    | H/b independent b×b bilinear blocks        | W (D, H/b, b, b): H·b·D      | FSMs with ≤ b states          |
| "diagonal" | diag(Wᵀx), real, any sign (block size 1)   | W (D, H)                     | parity only                   |
| "rotation" | H/2 rotations R(θ_k), θ = Wᵀx (R2)         | W (D, H/2)                   | commuting (abelian) only      |

Glossary (paper symbol → code name): H → ``d_model``; W → ``transition`` (for "cp": W^{(x)}; U =
W^{(h1)} → ``left``, V = W^{(h2)} → ``right``); R → ``rank``; b → ``block_size``; B, b (additive) →
``in_proj``; h_0 → ``h0``; the readout → ``head``.

Choices the paper leaves open (book/papers.md), all ours:

- **Input.** ``input="onehot"`` (default): x_t = e_token, so A(x_t) is simply a learned matrix (block,
  diagonal, angle) per token, D = vocab size; the padding token has its own transition and is never
  supervised. ``input="embedding"``: x_t = E[token] with a learned E (V, D), D = ``d_input``; the
  model forms the per-token tables ``Σ_k W_k E[v, k]`` once per forward, never per position.
- **h_0.** Learned, used as h0/‖h0‖ (so its scale is not a free parameter); initialised N(0, 1).
- **Normalization.** ``"every_step"`` (default): h ← h/‖h‖ after every step, training and test; our
  CPU calibration found it essential for length generalization (book/recipes.md). Without the
  additive term the recurrence is linear in h and the head has no bias, so the argmax is scale
  invariant: normalizing changes the logits' scale (what the loss sees), never the prediction, and
  for the pure model it equals normalizing only the readout. ``"none"``: the head reads the raw state.
  ``"inference"``: raw state in training, normalized every step in eval mode, the policy the
  unverified secondary notes attribute to the paper (book/papers.md); for the pure model its
  predictions equal "none"'s except where "none" would overflow.
- **Init.** "full" and "block": each token's matrix (each block) Haar-random orthogonal, our CPU
  calibration's choice (the most monotone training; near-identity and N(0, 1/H) also worked). "cp": U, V
  semi-orthogonal, s_v = W^{(x)ᵀ} e_v = ±U(0.5, 1) (with R = H and s = ±1 this would be orthogonal).
  "rotation": θ ~ U(−π, π), the Haar measure on SO(2) per block. "diagonal": w ~ U(−1, 1); its
  Haar analogue, random ±1, would start the model as BL Prop. 3's frozen parity solver. With
  ``input="embedding"`` these are the inits of the W_k slices and E ~ N(0, 1/D). The head and the
  additive ``in_proj`` (B x + b) use ``nn.Linear``'s default init.
- **R2 parameterization.** Unit modulus, θ_k(x) = W_kᵀ x per 2×2 block, no learned magnitude. The angles
  are stored as one flat vector, so ``fit()``'s weight decay (matrices only) leaves them alone:
  decaying an angle is not a shrinkage but a pull toward the identity rotation.
- **Readout.** A bias-free linear head on the (normalized) state at every position; per-position
  labels are the task's ``supervision="every"``.

``backend="fast"`` runs the ops' fast paths (``ops/bilinear.py``), ``"reference"`` the literal loops;
``step()`` always runs one step of the reference loop, so a rollout checks the fast path.

Used in: bl1–bl8 (the bilinear claims).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import Tensor, nn

from statetrack.config import ConfigError, ModelConfig, positive
from statetrack.models import register
from statetrack.models.ops import bilinear as ops

Variant = Literal["full", "cp", "block", "diagonal", "rotation"]
Normalize = Literal["every_step", "inference", "none"]
InputKind = Literal["onehot", "embedding"]
Backend = Literal["fast", "reference"]

# variant → (fast op, reference op); every op is f(*tables, tokens, h0, u, normalize).
_OPS = {
    "full": (ops.bilinear_dense, ops.bilinear_dense_sequential),
    "block": (ops.bilinear_block, ops.bilinear_block_sequential),
    "cp": (ops.bilinear_cp, ops.bilinear_cp_sequential),
    "diagonal": (ops.bilinear_diagonal, ops.bilinear_diagonal_sequential),
    "rotation": (ops.bilinear_rotation, ops.bilinear_rotation_sequential),
}


@dataclass(frozen=True)
class BilinearConfig(ModelConfig):
    """Bilinear RNN h_t = A(x_t) h_{t−1} (BL §2). ``d_model`` is the state size H; one layer only.

    Fields:
        variant: structure of A(x): "full" (W ∈ ℝ^{H×H×D}), "cp" (U diag(W^{(x)ᵀ}x) Vᵀ), "block"
            (block-diagonal, blocks b×b), "diagonal" (real, b = 1) or "rotation" (R2: 2×2 rotations).
        rank: R, the CP rank (variant "cp"); >= 1.
        block_size: b (variant "block"); must divide d_model. b = d_model is "full".
        additive: add B x_t + b after the transition (BL's ablation; False is the pure bilinear form).
        normalize: "every_step" (h ← h/‖h‖ after every step), "none", or "inference" (only in eval mode).
        input: "onehot" (x_t = e_token, D = vocab size) or "embedding" (learned E, D = ``d_input``).
        d_input: D for ``input="embedding"``; ignored for one-hot inputs.
        backend: "fast" (the ops' fast paths) or "reference" (the literal loops; equal up to rounding).
    """

    name: ClassVar[str] = "bilinear"
    #: One family per variant (its display name and colour): ``family`` is the variant.
    display_names: ClassVar[dict[str, str]] = {
        "full": "full bilinear", "cp": "CP bilinear", "block": "block-diagonal bilinear",
        "diagonal": "real diagonal (b=1)", "rotation": "R2 (rotation blocks)"}
    colors: ClassVar[dict[str, str]] = {"full": "#55A868", "cp": "#E6AB02", "block": "#17BECF",
                                        "diagonal": "#C44E52", "rotation": "#E7298A"}
    activation_floats: ClassVar[tuple[float, float, float]] = (8.5, 8.5, 0.5)
    transition_reader: ClassVar[str | None] = "tokens"
    contractive_exact: ClassVar[bool] = False
    #: The transition class of each variant.
    TRANSITIONS: ClassVar[dict[str, str]] = {"full": "dense", "block": "block_diagonal", "diagonal": "signed_diagonal",
                                             "rotation": "complex_diagonal", "cp": "low_rank_cp"}
    variant: Variant = "full"
    rank: int = 8
    block_size: int = 2
    additive: bool = False
    normalize: Normalize = "every_step"
    input: InputKind = "onehot"
    d_input: int = 16
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "rank", "block_size", "d_input")
        if self.num_layers != 1:
            raise ConfigError(
                f"{self._prefix()}num_layers={self.num_layers!r} is not allowed: the bilinear model has one layer"
            )
        if self.variant == "block" and self.d_model % self.block_size:
            raise ConfigError(
                f"{self._prefix()}block_size={self.block_size!r} does not divide d_model={self.d_model}; "
                f"allowed: a divisor of {self.d_model}"
            )
        if self.variant == "rotation" and self.d_model % 2:
            raise ConfigError(
                f"{self._prefix()}d_model={self.d_model!r} is odd: the rotation variant needs an even width "
                "(2×2 blocks)"
            )

    @property
    def label(self) -> str:
        core = {"cp": f"cp{self.rank}", "block": f"block{self.block_size}"}.get(self.variant, self.variant)
        extras = ["add"] if self.additive else []
        extras += {"none": ["nonorm"], "inference": ["evalnorm"]}.get(self.normalize, [])
        extras += [f"emb{self.d_input}"] if self.input == "embedding" else []
        return "-".join(["bilinear", core, *extras])

    @property
    def family(self) -> str:
        return self.variant

    @property
    def display(self) -> str:
        """The variant's display name; a block model names its block size ("block-diagonal b=2")."""
        return f"block-diagonal b={self.block_size}" if self.variant == "block" else self.display_names[self.variant]

    @property
    def transition(self) -> str:
        return self.TRANSITIONS[self.variant]

    @property
    def transition_param(self) -> int | None:
        return self.block_size if self.variant == "block" else None

    @property
    def transition_note(self) -> str:
        affine = "; the additive term B x + b makes the update affine (BL's ablation)" if self.additive else ""
        return "normalizing the state rescales it and leaves the class unchanged" + affine


def _haar_orthogonal(*shape: int) -> Tensor:
    """(*lead, n, n) Haar-random orthogonal matrices (QR of a Gaussian with R's diagonal made positive)."""
    q, r = torch.linalg.qr(torch.randn(*shape))
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)  # (*lead, n, n)


@register
class BilinearRNN(nn.Module):
    """Token ids (B, T) → logits (B, T, K) through one bilinear recurrence (see the module docstring).

    Besides ``forward``, ``init_state``/``step`` (the model contract), it offers ``states`` (every
    h_t, optionally from a given h_0), ``transition_matrices`` (A(x_v) for every token, dense) and
    ``transition_blocks`` (the same as independent square blocks, which ``spectra`` reads).
    """

    Config = BilinearConfig

    def __init__(self, cfg: BilinearConfig, vocab_size: int, num_classes: int):
        super().__init__()
        self.cfg = cfg
        H, V = cfg.d_model, vocab_size
        D = V if cfg.input == "onehot" else cfg.d_input
        self.vocab_size, self.d_input = V, D
        self.embed = nn.Parameter(torch.randn(V, D) / math.sqrt(D)) if cfg.input == "embedding" else None
        self.left = self.right = None
        if cfg.variant == "full":
            self.transition = nn.Parameter(_haar_orthogonal(D, H, H))  # (D, H, H)
        elif cfg.variant == "block":
            b = cfg.block_size
            self.transition = nn.Parameter(_haar_orthogonal(D, H // b, b, b))  # (D, H/b, b, b)
        elif cfg.variant == "cp":
            self.left = nn.Parameter(nn.init.orthogonal_(torch.empty(H, cfg.rank)))  # (H, R)
            self.right = nn.Parameter(nn.init.orthogonal_(torch.empty(H, cfg.rank)))  # (H, R)
            sign = torch.randint(0, 2, (D, cfg.rank)) * 2 - 1  # (D, R)
            self.transition = nn.Parameter(sign * (0.5 + 0.5 * torch.rand(D, cfg.rank)))  # (D, R)
        elif cfg.variant == "diagonal":
            self.transition = nn.Parameter(2 * torch.rand(D, H) - 1)  # (D, H)
        else:  # rotation; flat so that weight decay (matrices only) does not pull angles to 0
            self.transition = nn.Parameter((2 * torch.rand(D * H // 2) - 1) * math.pi)  # (D·H/2,)
        self.h0 = nn.Parameter(torch.randn(H))  # (H,)
        self.in_proj = nn.Linear(D, H) if cfg.additive else None
        self.head = nn.Linear(H, num_classes, bias=False)

    # -- per-token tables -------------------------------------------------------------------------
    def _per_token(self, p: Tensor) -> Tensor:
        """(D, *S) → (V, *S): the slice for token v is Σ_k p[k] x_v[k] (p itself for one-hot x)."""
        if self.embed is None:
            return p  # (V, *S)
        return (self.embed @ p.flatten(1)).view(self.vocab_size, *p.shape[1:])  # (V, *S)

    def tables(self) -> tuple[Tensor, ...]:
        """The op's per-token operands: (A,) for full/block, (L, s, R) for cp, (w,) or (θ,) otherwise."""
        if self.cfg.variant == "cp":
            return self.left, self._per_token(self.transition), self.right  # (H, R), (V, R), (H, R)
        if self.cfg.variant == "rotation":
            return (self._per_token(self.transition.view(self.d_input, -1)),)  # (V, H/2)
        return (self._per_token(self.transition),)  # (V, H, H), (V, H/b, b, b) or (V, H)

    def additive_table(self) -> Tensor | None:
        """u_v = B x_v + b per token (V, H), or None for the pure bilinear form."""
        if self.in_proj is None:
            return None
        if self.embed is None:
            return self.in_proj.weight.T + self.in_proj.bias  # (V, H) one-hot x picks a column of B
        return self.in_proj(self.embed)  # (V, H)

    def transition_matrices(self) -> Tensor:
        """A(x_v) for every token v as dense matrices (V, H, H), for analysis (BL Prop. 2)."""
        V, H = self.vocab_size, self.cfg.d_model
        tables = self.tables()
        if self.cfg.variant == "full":
            return tables[0]  # (V, H, H)
        if self.cfg.variant == "cp":
            left, scale, right = tables
            return torch.einsum("ir,vr,jr->vij", left, scale, right)  # (V, H, H)
        if self.cfg.variant == "diagonal":
            return torch.diag_embed(tables[0])  # (V, H, H)
        blocks = self.transition_blocks()  # (V, H/b, b, b), rotation b = 2
        nb = blocks.shape[1]
        eye = torch.eye(nb, dtype=blocks.dtype, device=blocks.device)  # (H/b, H/b)
        return torch.einsum("vkij,kl->vkilj", blocks, eye).reshape(V, H, H)  # (V, H, H) block-diagonal

    def transition_blocks(self) -> Tensor:
        """A(x_v) for every token v as its independent square blocks (V, G, n, n): one H×H block for "full" and
        "cp", H/b blocks b×b for "block", H/2 rotations 2×2 for "rotation", H blocks 1×1 for "diagonal"."""
        variant, tables = self.cfg.variant, self.tables()
        if variant == "full":
            return tables[0].unsqueeze(1)  # (V, 1, H, H)
        if variant == "block":
            return tables[0]  # (V, H/b, b, b)
        if variant == "diagonal":
            return tables[0][..., None, None]  # (V, H, 1, 1)
        if variant == "rotation":
            c, s = torch.cos(tables[0]), torch.sin(tables[0])  # (V, H/2) each
            return torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)  # (V, H/2, 2, 2)
        return self.transition_matrices().unsqueeze(1)  # cp: (V, 1, H, H)

    # -- recurrence ---------------------------------------------------------------------------------
    def _normalizing(self) -> bool:
        return self.cfg.normalize == "every_step" or (self.cfg.normalize == "inference" and not self.training)

    def start(self, batch: int) -> Tensor:
        """h_0 = h0/‖h0‖ for every sequence: (B, H)."""
        return (self.h0 / torch.linalg.vector_norm(self.h0)).expand(batch, -1)  # (B, H)

    def states(self, tokens: Tensor, h0: Tensor | None = None) -> Tensor:
        """Every state h_t (B, T, H), from the learned h_0 or from ``h0`` ((H,) or (B, H)) used as given."""
        B = tokens.shape[0]
        start = self.start(B) if h0 is None else h0.expand(B, -1)  # (B, H)
        op = _OPS[self.cfg.variant][0 if self.cfg.backend == "fast" else 1]
        h, _ = op(*self.tables(), tokens, start, self.additive_table(), normalize=self._normalizing())
        return h  # (B, T, H)

    def forward(self, tokens: Tensor) -> Tensor:
        return self.head(self.states(tokens))  # (B, T, K)

    def init_state(self, batch: int, device: torch.device | str = "cpu") -> Tensor:
        """The state before the first token: h0/‖h0‖ for every sequence, (B, H)."""
        return self.start(batch).to(device)  # (B, H)

    def step(self, tokens: Tensor, state: Tensor) -> tuple[Tensor, Tensor]:
        """One token per sequence: tokens (B,) → logits (B, K) and the next state (B, H); the reference loop."""
        op = _OPS[self.cfg.variant][1]
        _, h = op(*self.tables(), tokens.unsqueeze(1), state, self.additive_table(), normalize=self._normalizing())
        return self.head(h), h  # (B, K), (B, H)
