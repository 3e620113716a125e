"""statetrack: a reproducible companion to two papers on state tracking in recurrent networks.

- NE: Grazzi et al., *Unlocking State-Tracking in Linear RNNs Through Negative Eigenvalues* (ICLR 2025).
- BL: Ebrahimi & Memisevic, *Revisiting Bi-Linear State Transitions in Recurrent Neural Networks* (NeurIPS 2025).

Subpackages and modules: ``tasks`` (data), ``models`` (recurrences and models), ``training`` (one
``fit``), ``evaluate`` (metrics), ``results`` (records), ``claims`` (one module per paper claim),
``theory`` (exact and finite-precision demonstrations), ``plotting``, ``widgets``, ``cli``.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``statetrack.register_model`` (the plug-in API of ``statetrack.models``), imported on first use so that
    ``import statetrack`` stays light."""
    if name == "register_model":
        from statetrack.models import register_model

        return register_model
    raise AttributeError(f"module 'statetrack' has no attribute {name!r}")
