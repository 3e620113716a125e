"""statetrack: a reproducible companion to two papers on state tracking in recurrent networks.

- NE: Grazzi et al., *Unlocking State-Tracking in Linear RNNs Through Negative Eigenvalues* (ICLR 2025).
- BL: Ebrahimi & Memisevic, *Revisiting Bi-Linear State Transitions in Recurrent Neural Networks* (NeurIPS 2025).

Subpackages and modules: ``tasks`` (data), ``models`` (recurrences and models), ``training`` (one
``fit``), ``evaluate`` (metrics), ``results`` (records), ``claims`` (one module per paper claim),
``theory`` (exact and finite-precision demonstrations), ``plotting``, ``widgets``, ``cli``.
"""

__version__ = "0.1.0"
