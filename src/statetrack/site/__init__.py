"""The book build: executing the notebooks and building the Jupyter Book (``book``), the scoreboard and the measured
budget (``scoreboard``), the launch buttons (``launch``), a patient kernel client (``kernel_client``), the background
chapters' figures (``background_figures``, ``theory_grid``), the papers' coverage (``paper_coverage``), what the
verdict rules changed (``verdict_changes``) and the built pages' audit (``audit``). Imports everything below it (the
claims and the page kit included); only the tools and the CLI import it.
"""
