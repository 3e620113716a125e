"""ne7's page (language modelling in miniature), in a few modules.

- ``readings``: what the page computes beside its verdict (grids, corpora, cost, run table, cells, Table 4, speed).
- ``corpus_splits``: a corpus's files and bytes per split, checked disjoint.
- ``lm_summary``: language-model runs summarized per cell (median and best) and per model (tokens per second).
- ``lm_curves``: a language model's smoothed training loss and test perplexity by position, one row per point.
- ``figures``: the loss curves, perplexity by position and the records explorer.

Used in: notebooks/ne7_language_modelling.md.
"""
