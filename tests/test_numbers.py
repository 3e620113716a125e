"""The one number formatter (``statetrack.verdicts.numbers.number``) against hand-worked strings."""

import math

import numpy as np
import pytest

from statetrack.verdicts.numbers import MISSING, number


@pytest.mark.parametrize("x, kw, text", [
    (0.12345, {}, "0.123"),
    (0.5, {"digits": 2}, "0.50"),
    (-0.0005, {}, "-0.001"),
    (np.float32(0.25), {}, "0.250"),
    (3, {}, "3.000"),
    (1.234e-7, {"style": "general"}, "1.23e-07"),
    (45.678, {"style": "general"}, "45.7"),
    (1234.5, {"style": "general"}, "1.23e+03"),
    (9.9999, {"style": "grouped"}, "10.000"),  # below 10 in size: decimals
    (14.458, {"style": "grouped"}, "14.5"),
    (99.96, {"style": "grouped"}, "100"),
    (44964.52, {"style": "grouped"}, "45,000"),
    (-1234.5, {"style": "grouped"}, "-1,230"),
])
def test_a_number_prints_as_worked_out_by_hand(x, kw, text):
    assert number(x, **kw) == text


@pytest.mark.parametrize("style", ["fixed", "general", "grouped"])
@pytest.mark.parametrize("x", [None, float("nan"), math.inf, -math.inf, np.nan])
def test_a_missing_number_prints_as_a_dash(x, style):
    assert number(x, style=style) == MISSING == "–"
