"""What the book shows: the page helper (``page``), tables, plotting primitives, explorers, the scoreboard, the
book build (``book``), each claim page's readings and figures (``pages``, one module per claim id) and what two or
more of them share (``grids``, ``paper_runs``, ``statement_readings``, ``bilinear_figures``, ``block_tracker``,
``word_problem_figures``), and the background page's picture (``theory_grid``). Imports everything below it (core,
registries, theory, runs, claims); nothing below imports it.
"""
