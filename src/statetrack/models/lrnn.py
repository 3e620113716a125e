"""The NE paper's two linear RNNs as registered models: ``mamba`` and ``deltanet``.

Each is a residual stack (``model.SequenceModel``) of one mixer type from ``layers`` and has the
field ``eig_range``: "[0,1]" (the original models) or "[-1,1]" (NE Eq. 2). Two configs that differ
only in ``eig_range`` are the ablation of claim ne1.

Used in: ne1, ne4, ne5, ne6.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from statetrack.config import ConfigError, positive
from statetrack.models import register
from statetrack.models.layers import DeltaNetMixer, MambaMixer
from statetrack.models.model import SequenceModel, StackConfig

EigRange = Literal["[0,1]", "[-1,1]"]
Backend = Literal["fast", "reference"]


def _eig_slug(eig_range: str) -> str:
    return "neg" if eig_range == "[-1,1]" else "pos"


@dataclass(frozen=True)
class MambaConfig(StackConfig):
    """Mamba (selective diagonal SSM). Paper symbols: D = d_model, N = d_state, E = expand.

    Fields: ``eig_range`` [0,1] or [-1,1] (NE Eq. 2); ``d_state`` N; ``expand`` E (inner width E·D);
    ``d_conv`` width of the causal short convolution (0 = none); ``dt_rank`` rank of the Δ projection
    (0 = ceil(D/16), Mamba's default); ``backend`` "fast" (the custom-gradient scan) or "reference"
    (the autograd loop; identical up to rounding).
    """

    name: ClassVar[str] = "mamba"
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


@dataclass(frozen=True)
class DeltaNetConfig(StackConfig):
    """DeltaNet (generalized Householder transitions). Paper symbols: D = d_model, H = num_heads.

    Fields: ``eig_range`` [0,1] (β = sigmoid) or [-1,1] (β = 2·sigmoid); ``num_heads`` H (must divide
    D; head width D/H); ``d_conv`` short-convolution width on q, k, v (0 = none); ``backend`` "fast"
    (chunked WY/UT form) or "reference" (the step-by-step loop).
    """

    name: ClassVar[str] = "deltanet"
    eig_range: EigRange = "[0,1]"
    num_heads: int = 4
    d_conv: int = 4
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "num_heads")
        if self.d_model % self.num_heads:
            raise ConfigError(
                f"{self._prefix()}num_heads={self.num_heads} does not divide d_model={self.d_model}; "
                f"allowed: a divisor of {self.d_model}"
            )
        if self.d_conv < 0:
            raise ConfigError(f"{self._prefix()}d_conv={self.d_conv!r} is not allowed: it must be >= 0")

    @property
    def label(self) -> str:
        return f"deltanet-{_eig_slug(self.eig_range)}"


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
