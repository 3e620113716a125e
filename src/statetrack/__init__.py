"""statetrack: a reproducible companion to two papers on state tracking in recurrent networks.

- NE: Grazzi et al., *Unlocking State-Tracking in Linear RNNs Through Negative Eigenvalues* (ICLR 2025).
- BL: Ebrahimi & Memisevic, *Revisiting Bi-Linear State Transitions in Recurrent Neural Networks* (NeurIPS 2025).

Subpackages and modules, lowest layer first: ``config``; ``tasks`` (data) and ``models`` (recurrences and
models); ``training`` (one ``fit``) and ``evaluate`` (metrics); ``theory`` (exact and finite-precision
demonstrations); ``runs`` (records: store, provenance, cost); ``verdicts`` (the engine that judges a claim);
``display`` (the page kit: tables, figures, explorers); ``claims`` (one folder per paper claim: its declaration and
its page); ``site`` (the book build); ``tools`` (bench, leaderboard, sweep); ``cli``.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``statetrack.register_model`` (the plug-in API of ``statetrack.models``), imported on first use so that
    ``import statetrack`` stays light."""
    if name == "register_model":
        # start-up: `import statetrack` (a plug-in module does it) loads no torch until register_model is used
        from statetrack.models import register_model

        return register_model
    raise AttributeError(f"module 'statetrack' has no attribute {name!r}")
