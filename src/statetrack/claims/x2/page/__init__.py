"""x2's page (the eigenvalue explorer), in a few modules.

- ``readings``: what the page computes beside its verdict (run table, readings, eigenvalues, drift, untrained
  contrast, the records browser's start).
- ``householder_heads``: each DeltaNet head's non-unit eigenvalue 1 − β per token and the overlap of its keys.
- ``rotation_drift``: a rotation model's homomorphism miss, mean angle error and drift horizon.
- ``shown_runs``: the run a figure shows for each cell (its first exact solution) and its readings.
- ``figures``: the learned spectra, the rotation angles and the explorers.

Used in: notebooks/x2_eigenvalue_explorer.md.
"""
