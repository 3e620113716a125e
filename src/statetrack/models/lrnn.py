"""The NE paper's linear RNNs as registered models: ``mamba``, ``deltanet`` and ``deltaproduct``.

Each is a residual stack (``model.SequenceModel``) of one mixer type from ``layers`` and has the
field ``eig_range``: "[0,1]" (the original models) or "[-1,1]" (NE Eq. 2). Two configs that differ
only in ``eig_range`` are the ablation of claim ne1. ``deltaproduct`` (Siems et al. 2025; NE Thm 4's
products of generalized Householder matrices) is DeltaNet with ``num_householder`` = n_h steps per
token; n_h = 1 is DeltaNet.

Used in: ne1, ne4, ne5, ne6 (deltaproduct: claims on S_n word problems, NE Thm 3/4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from statetrack.config import ConfigError, positive
from statetrack.models import register
from statetrack.models.layers import DeltaNetMixer, DeltaProductMixer, MambaMixer
from statetrack.models.model import SATURATES, SequenceModel, StackConfig

EigRange = Literal["[0,1]", "[-1,1]"]
Backend = Literal["fast", "reference"]
DeltaBackend = Literal["fast", "reference", "fla"]


def _eig_slug(eig_range: str) -> str:
    return "neg" if eig_range == "[-1,1]" else "pos"


def householder_class(eig_range: str, n: int) -> str:
    """The transition class of a product of n generalized Householder factors with eigenvalues in ``eig_range``."""
    if eig_range != "[-1,1]":
        return "householder_nonneg"
    return "reflection" if n == 1 else "reflections_n"


@dataclass(frozen=True)
class MambaConfig(StackConfig):
    """Mamba (selective diagonal SSM). Paper symbols: D = d_model, N = d_state, E = expand.

    Fields: ``eig_range`` [0,1] or [-1,1] (NE Eq. 2); ``d_state`` N; ``expand`` E (inner width E·D);
    ``d_conv`` width of the causal short convolution (0 = none); ``dt_rank`` rank of the Δ projection
    (0 = ceil(D/16), Mamba's default); ``backend`` "fast" (the custom-gradient scan) or "reference"
    (the autograd loop; identical up to rounding).
    """

    name: ClassVar[str] = "mamba"
    display_names: ClassVar[dict[str, str]] = {"mamba": "Mamba"}
    colors: ClassVar[dict[str, str]] = {"mamba": "#DD8452"}
    activation_floats: ClassVar[tuple[float, float, float]] = (51.0, 37.0, 0.43)
    transition_reader: ClassVar[str | None] = "mixer"
    contractive_exact: ClassVar[bool] = True
    transition_note: ClassVar[str] = ("a = exp(−Δ e^{A_log}) ∈ (0, 1) (or 2a − 1 ∈ (−1, 1)); " + SATURATES)
    transition_param: ClassVar[int | None] = None
    eig_range: EigRange = "[0,1]"
    d_state: int = 16
    expand: int = 2
    d_conv: int = 4
    dt_rank: int = 0
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "d_state", "expand")
        if self.d_conv < 0 or self.dt_rank < 0:
            raise ConfigError(f"{self._prefix()}d_conv and dt_rank must be >= 0, got {self.d_conv}, {self.dt_rank}")

    @property
    def label(self) -> str:
        return f"mamba-{_eig_slug(self.eig_range)}"

    @property
    def transition(self) -> str:
        return "signed_diagonal" if self.eig_range == "[-1,1]" else "positive_diagonal"


@dataclass(frozen=True)
class DeltaNetConfig(StackConfig):
    """DeltaNet (generalized Householder transitions). Paper symbols: D = d_model, H = num_heads.

    Fields: ``eig_range`` [0,1] (β = sigmoid) or [-1,1] (β = 2·sigmoid); ``num_heads`` H (must divide
    D; head width D/H); ``d_conv`` short-convolution width on q, k, v (0 = none); ``backend`` "fast"
    (chunked WY/UT form), "reference" (the step-by-step loop) or "fla" (fla's Triton kernel in bf16 on
    CUDA, a speed reference only; elsewhere it falls back to "fast" with a warning).
    """

    name: ClassVar[str] = "deltanet"
    display_names: ClassVar[dict[str, str]] = {"deltanet": "DeltaNet"}
    colors: ClassVar[dict[str, str]] = {"deltanet": "#4C72B0"}
    activation_floats: ClassVar[tuple[float, float, float]] = (53.0, 57.0, 0.5)
    transition_reader: ClassVar[str | None] = "mixer"
    contractive_exact: ClassVar[bool] = False
    transition_note: ClassVar[str] = "eigenvalue 1 (multiplicity d − n) is always present"
    eig_range: EigRange = "[0,1]"
    num_heads: int = 4
    d_conv: int = 4
    backend: DeltaBackend = "fast"

    def check(self) -> None:
        super().check()
        _check_heads_and_conv(self)

    @property
    def label(self) -> str:
        return f"deltanet-{_eig_slug(self.eig_range)}"

    @property
    def transition(self) -> str:
        return householder_class(self.eig_range, 1)

    @property
    def transition_param(self) -> int:
        return 1  # one generalized Householder factor per token


@dataclass(frozen=True)
class DeltaProductConfig(StackConfig):
    """DeltaProduct: n_h generalized Householder steps per token. Paper symbols: D, H, n_h.

    Fields as ``DeltaNetConfig`` (``eig_range``, ``num_heads``, ``d_conv``, ``backend``) plus
    ``num_householder`` n_h ≥ 1, the DeltaProduct paper's number of Householder factors per token
    (fla's ``num_householder``; n_h = 1 is DeltaNet). Cost grows ×n_h (the sequence is interleaved
    to length T·n_h). Default 2, fla's default and the smallest n_h whose [−1,1] products include
    rotations.
    """

    name: ClassVar[str] = "deltaproduct"
    display_names: ClassVar[dict[str, str]] = {"deltaproduct": "DeltaProduct"}
    colors: ClassVar[dict[str, str]] = {"deltaproduct": "#2A9D8F"}
    activation_floats: ClassVar[tuple[float, float, float]] = (97.0, 68.0, 0.5)
    transition_reader: ClassVar[str | None] = "mixer"
    contractive_exact: ClassVar[bool] = False
    transition_note: ClassVar[str] = "eigenvalue 1 (multiplicity d − n) is always present"
    eig_range: EigRange = "[0,1]"
    num_heads: int = 4
    d_conv: int = 4
    num_householder: int = 2
    backend: DeltaBackend = "fast"

    def check(self) -> None:
        super().check()
        _check_heads_and_conv(self)
        if self.num_householder < 1:
            raise ConfigError(
                f"{self._prefix()}num_householder={self.num_householder!r} is not allowed: it must be >= 1 "
                "(1 is DeltaNet)"
            )

    @property
    def label(self) -> str:
        return f"deltaproduct{self.num_householder}-{_eig_slug(self.eig_range)}"

    @property
    def transition(self) -> str:
        return householder_class(self.eig_range, self.num_householder)

    @property
    def transition_param(self) -> int:
        return self.num_householder


def _check_heads_and_conv(cfg) -> None:
    positive(cfg, "num_heads")
    if cfg.d_model % cfg.num_heads:
        raise ConfigError(
            f"{cfg._prefix()}num_heads={cfg.num_heads} does not divide d_model={cfg.d_model}; "
            f"allowed: a divisor of {cfg.d_model}"
        )
    if cfg.d_conv < 0:
        raise ConfigError(f"{cfg._prefix()}d_conv={cfg.d_conv!r} is not allowed: it must be >= 0")


@register
class Mamba(SequenceModel):
    Config = MambaConfig

    def make_mixer(self, cfg: MambaConfig):
        return MambaMixer(cfg.d_model, cfg.d_state, cfg.expand, cfg.d_conv, cfg.dt_rank, cfg.eig_range, cfg.backend)


@register
class DeltaNet(SequenceModel):
    Config = DeltaNetConfig

    def make_mixer(self, cfg: DeltaNetConfig):
        return DeltaNetMixer(cfg.d_model, cfg.num_heads, cfg.d_conv, cfg.eig_range, cfg.backend)


@register
class DeltaProduct(SequenceModel):
    Config = DeltaProductConfig

    def make_mixer(self, cfg: DeltaProductConfig):
        return DeltaProductMixer(cfg.d_model, cfg.num_heads, cfg.d_conv, cfg.eig_range, cfg.num_householder,
                                 cfg.backend)
