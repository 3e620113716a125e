"""Commands beside the claims: ``bench`` (fast paths against their references), ``peers`` (against public code),
``leaderboard`` (one model on x1's board). The top of the import order below ``cli``.
"""
