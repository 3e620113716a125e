"""The verdict engine: what every claim is judged with, and the registry that finds a claim by id.

- ``statements``: statements, rules, scores, exact checks, and the verdict they decide.
- ``seed_statistics``: whether a run fitted its training lengths; exact binomial tools for seed counts.
- ``recipes``: the presets, seeds and training recipes the claims' grids share, ``Cell`` and ``expand``.
- ``claim``: ``Claim``, the declaration each ``claims/<id>/claim.py`` ends with; the papers' numbers; model names.
- ``pilots``: recorded pilots of the quick recipes, on seeds no verdict reads.
- ``check_cache``: exact checks kept on disk, keyed by the code that computes them.
- ``plan``: a preset's runs across claims, which are missing and what they cost.
- ``registry``: every claim by id (``CLAIMS``), and what runs and judges a claim's grid.

Imports the core, the registries, the theory and the run store; never the page kit, a claim or the book.
"""
