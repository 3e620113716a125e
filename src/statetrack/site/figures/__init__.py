"""Each claim's figures and explorers, one module per topic (``chomsky`` for ne4, ``parity`` for ne1, ...), and
the picture of the background page on both theories (``theory_grid``).

They build on the shared primitives of ``statetrack.site.plotting`` (the style, the colour of each model family,
the annotated heatmap, the accuracy-by-length plot, the explorer skeleton); the records browser over every
recorded run is ``statetrack.site.widgets``. Nothing here shows or saves a figure: each function returns a
matplotlib ``Figure`` or an ipywidgets ``Widget``.
"""
