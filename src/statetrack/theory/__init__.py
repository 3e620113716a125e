"""Exact constructions and finite-precision demonstrations of the papers' theorems, one module per result.

Each returns values (constructions, bounds, predictions) or builds ``Check`` rows several claims share; a claim's own
exact checks are assembled in its ``claims/<id>/claim.py``.

NE (negative eigenvalues):

- ``finite_precision``: NE Thm 1 on the input 1^k (a stored state in [0,1) freezes; a = −1 alternates). ne1.
- ``rotations``: NE Thm 2 (a real diagonal is eventually 1- or 2-periodic; a rotation by 2π/3 counts mod 3). ne2.
- ``layered_counting``: NE Thm 2 for two layers (real two-step products give periods 1, 2, 4; Thm 6's reflections count mod 3). ne2, ne3.
- ``householder``: NE Prop 1, Thm 3, Thm 6 (products of generalized Householder matrices). ne3.
- ``gh_factorization``: NE Prop 1.2 (orthogonal = n GH reflections, any ‖M‖ ≤ 1 = 3n GH factors). ne3.
- ``modular_arithmetic``: NE Table 3's modular arithmetic without brackets as an automaton. ne4.
- ``word_problems``: NE Thm 3 and Fig. 4/8 (a group word problem tracked by one linear map per token). ne5, ne6.
- ``cascade``: NE Thm 4 (any automaton as a holonomy cascade of permutation–reset layers, each letter a GH product).
- ``counting_mod3``: NE Thms 2, 3, 6 on 1^k as check rows (real orbits cannot count mod 3; a rotation or two
  reflections can) and the bound a state holding no count scores. ne2, ne3.
- ``gh_checks``: NE Prop 1, Thms 3, 4, 6 as check rows at given sizes. ne3.
- ``spectral_readings``: NE Thms 1–3 read off a trained model's transitions: what an exact solution's spectrum
  must show in fp32. x2.

BL (bilinear state transitions):

- ``fsm_simulation``: BL Prop 1 (a full bilinear RNN simulates any FSM). bl1.
- ``block_size``: which block size a task needs. bl2, bl5.
- ``synchronization``: synchronising words of random machines and the window ceiling. bl3.
- ``arithmetic_automaton``: BL's modular arithmetic as an m²-state machine. bl4.
- ``additive_terms``: pure against affine updates of the frozen random diagonal network. bl6.
- ``commuting``: BL Prop 2 (a shared eigenbasis forces commutativity). bl7.
- ``frozen_diagonal``: BL Prop 3 (a frozen random diagonal network learns parity from two examples). bl8.

Both papers and their follow-ups:

- ``letters``: the letters' facts x1 shows beside each task (do they commute, the longest cycle).
- ``groups``: the order of the group a task's letters generate (closure of their permutations). bl5, x1.
- ``predictions``: the class × task table of what one layer (and more) can track, each cell citing its theorem;
  the zoo's models mapped to their transition classes.

Shared by the modules above: ``threads.single_thread`` (the guard every long construction runs under) and
``rotations.eventual_period`` (the one period finder, for orbits, predictions and answer sequences).
"""
