"""Figure and widget functions of individual claims, one module per topic (``chomsky`` for ne4, ...).

The shared, claim-independent plots stay in ``statetrack.plotting`` and the generic explorers in
``statetrack.widgets``; a module here reuses their style (``plotting._style``, ``plotting.PALETTE``)
and holds what only one family of claims draws. Like ``plotting``, nothing here shows or saves a
figure: each function returns a matplotlib ``Figure`` or an ipywidgets ``Widget``.
"""
