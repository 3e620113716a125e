"""The background chapters' figures: drawn by package code, with alt text, and the disk's points where theory puts them."""

from __future__ import annotations

import cmath

import pytest

from statetrack.site import background_figures as bf


def test_each_figure_is_written_with_its_alt_text_and_caption(tmp_path):
    bf.write(tmp_path)
    for name in bf.FIGURES:
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
        md = (tmp_path / f"{name}.md").read_text()
        assert md.startswith(f"```{{figure}} _generated/{name}.png\n:alt: ") and f"background_figures." in md


def test_the_disk_marks_the_roots_of_unity_counting_needs():
    import matplotlib.pyplot as plt

    fig = bf.unit_disk()
    points = [complex(x, y) for c in fig.axes[0].collections for x, y in c.get_offsets()]
    plt.close(fig)
    for m in (2, 3):
        for k in range(m):
            root = cmath.exp(2j * cmath.pi * k / m)  # e^{2πik/m}, computed here
            assert min(abs(p - root) for p in points) == pytest.approx(0, abs=1e-9)


def test_the_hierarchy_agrees_with_the_theory_grid_and_its_labels_are_readable():
    """Each level's S3 verdict is the theory grid's for its class (a 2 × 2 dense block tracks S3, rotations do not),
    and every label is at least 10 pt on an image shown at the size it is drawn."""
    import matplotlib.pyplot as plt

    from statetrack.theory.predictions import predict

    assert predict("block_diagonal", "S3", param=2).says == "can"
    assert predict("complex_diagonal", "S3").says == "cannot"
    names = [name for name, _, _ in bf.LEVELS]
    tracks = dict((name, t) for name, _, t in bf.LEVELS)
    assert "S3" in tracks["b × b dense blocks"] and "no non-abelian group" in tracks["2 × 2 rotations (R2)"]
    assert names[0] == "real diagonal" and names[-1] == "full matrix"
    fig = bf.hierarchy()
    assert round(fig.get_figwidth() * bf.DPI) == bf.WIDTH_PX
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 10
    plt.close(fig)
