"""Exact constructions and finite-precision demonstrations of the papers' theorems.

- ``finite_precision``: NE Thm 1 on the input 1^k (a stored state in [0,1) freezes; a = −1 alternates).

Used in: ne1 (and ne2, ne3, bl1, bl7, bl8 later).
"""
