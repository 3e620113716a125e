"""What the book shows: the page helper (``page``), tables, plotting primitives, explorers, the scoreboard, the
book build (``book``) and each claim page's readings and figures (``analysis``, ``figures``). Imports everything
below it (core, registries, theory, runs, claims); nothing below imports it.
"""
