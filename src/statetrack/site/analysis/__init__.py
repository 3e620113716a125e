"""Readings of trained runs that a page reports beside its verdict: one module per reading.

- ``householder_heads``: each DeltaNet head's non-unit eigenvalue 1 − β per token and the overlap of its keys.
- ``rotation_drift``: a rotation model's homomorphism miss, mean angle error and drift horizon.
- ``shown_runs``: the run a figure shows for each cell (its first exact solution) and its readings.
- ``lm_curves``: a language model's smoothed training loss and test perplexity by position, one row per point.
- ``lm_summary``: language-model runs summarized per cell (median and best) and per model (tokens per second).
- ``corpus_splits``: a corpus's files and bytes per split, checked disjoint.
- One module per claim page, named by the claim's id (``ne1`` … ``ne7``, ``bl1`` … ``bl8``, ``x1``, ``x2``): what that
  page computes beside its verdict (its exact tables, its run table's scores, the values its prose quotes), so that
  the notebook holds only calls.

Used in: every claim notebook (notebooks/*.md).
"""
