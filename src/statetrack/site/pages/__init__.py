"""One module per claim page, named by the claim's id (``ne1`` … ``ne7``, ``bl1`` … ``bl8``, ``x1``): everything
that page computes and draws beside its verdict (its exact tables, its run table's scores, the values its prose
quotes, its figures and explorers), so that the notebook holds only calls. The two largest pages are packages of a
few modules (``ne7``, ``x2``).

A page imports the shared site modules (``grids``, ``paper_runs``, ``statement_readings``, ``bilinear_figures``,
``block_tracker``, ``word_problem_figures``, ``plotting``, ``widgets``, ``page``) and never another page; nothing
outside ``pages`` in ``statetrack.site`` imports a page. Nothing here shows or saves a figure: each figure function
returns a matplotlib ``Figure`` or an ipywidgets ``Widget``.

Used in: every claim notebook (notebooks/*.md).
"""
