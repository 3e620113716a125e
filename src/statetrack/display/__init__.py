"""The page kit: what every claim page is built with.

- ``page``: ``Page`` (a page's parameters, grid, runs and verdict box), the verdict chip the scoreboard shares.
- ``parameters``: a notebook's parameters cell, checked before anything runs.
- ``tables``: tables as a page shows them, and the one number format.
- ``plots``: the style, one colour per model family, the shared figures.
- ``explorers``: explorers that work without a kernel (Vega-Lite).
- ``records_browser``: every recorded run's accuracy by length, browsable.
- ``grids``, ``paper_runs``, ``statement_readings``: what a page reads off its grid, its paper-preset runs and its
  statements.
- ``bilinear_figures``, ``block_tracker``, ``word_charts``, ``word_problem_figures``: figures and explorers that two
  or more pages share.

Imports the engine (``statetrack.verdicts``) and everything below it; never a claim or the book build.
"""
