"""The claims, one folder each, ``claims/<id>/``: ``claim.py`` declares the claim (its grid per preset, its
statements, its exact part, ``CLAIM = Claim(...)``) and ``page.py`` (a ``page/`` package for ne7 and x2) holds what its
page computes and draws beside the verdict (its exact tables, its run table's scores, the values its prose quotes,
its figures and explorers), so that the notebook holds only calls.

A ``claim.py`` imports the engine (``statetrack.verdicts``) and never the page kit (``statetrack.display``), so
``statetrack verify`` loads no plotting library; a ``page`` imports its own claim and the page kit, never another
claim's page. Nothing here shows or saves a figure: each figure function returns a matplotlib ``Figure`` or an
explorer. The registry (``statetrack.verdicts.registry.CLAIMS``) reads the ids below, in the book's order.

Used in: every claim notebook (notebooks/*.md), ``statetrack.verdicts.registry``.
"""

IDS = ("ne1", "ne2", "ne3", "ne4", "ne5", "ne6", "ne7", "bl1", "bl2", "bl3", "bl4", "bl5", "bl6", "bl7", "bl8",
       "x1", "x2")
