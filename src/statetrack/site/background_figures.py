"""The background chapters' figures, drawn at build time: the unit disk of NE and the hierarchy of BL.

- ``unit_disk()``: the complex plane's unit disk with the eigenvalues a transition can reach, λ ∈ [0, 1] (Mamba,
  DeltaNet as published) against λ ∈ [−1, 1] (after NE's one-line change), and the m-th roots of unity
  e^{2πik/m} that counting mod m needs (m = 2: parity's −1; m = 3: a rotation no real eigenvalue gives).
- ``hierarchy()``: BL's transition structures nested by what they contain (real diagonal ⊂ 2 × 2 rotations ⊂ dense
  b × b blocks ⊂ full matrices), each beside what one layer of it tracks, in words, as the theory grid says.
- ``write(folder)``: both as PNGs, with the MyST that shows them (alt text, caption, the code that drew them); the
  image paths are relative to ``book/``, where the including chapters live.

Used in: ``statetrack.site.book.write_generated`` (book/intro.md and background_ne.md include the disk,
background_bl.md and background_both.md the hierarchy).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from statetrack.display.plots import OKABE_ITO

BLUE, ORANGE, GREEN, VERMILION, GREY = (OKABE_ITO[c] for c in ("blue", "orange", "green", "vermilion", "grey"))


def unit_disk():
    """NE's idea in one picture: the eigenvalue ranges on the unit disk, and the roots of unity counting needs."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.6, 4.6))
    t = np.linspace(0, 2 * np.pi, 400)  # (400,)
    ax.plot(np.cos(t), np.sin(t), color=GREY, lw=1)
    ax.axhline(0, color=GREY, lw=0.5)
    ax.axvline(0, color=GREY, lw=0.5)
    ax.plot([-1, 1], [-0.04, -0.04], color=ORANGE, lw=6, solid_capstyle="butt", label="λ ∈ [−1, 1]: NE's change")
    ax.plot([0, 1], [0.04, 0.04], color=BLUE, lw=6, solid_capstyle="butt", label="λ ∈ [0, 1]: Mamba, DeltaNet")
    for m, marker, colour in ((2, "o", VERMILION), (3, "s", GREEN)):
        roots = np.exp(2j * np.pi * np.arange(m) / m)  # (m,)
        ax.scatter(roots.real, roots.imag, s=70, marker=marker, facecolor="none", edgecolor=colour, lw=2, zorder=3,
                   label=f"roots of unity, m = {m}")
    ax.annotate("−1: parity", (-1, 0), (-1.02, 0.35), ha="center", arrowprops=dict(arrowstyle="-", color=GREY))
    ax.annotate(r"$e^{2\pi i/3}$: count mod 3", (-0.5, np.sqrt(3) / 2), (-0.2, 1.2), ha="center",
                arrowprops=dict(arrowstyle="-", color=GREY))
    ax.set(xlim=(-1.4, 1.4), ylim=(-1.4, 1.4), aspect="equal", xlabel="real part", ylabel="imaginary part")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, -0.5), fontsize=9, frameon=False)
    fig.tight_layout()
    return fig


#: (structure, what it contains, what one layer of it tracks), innermost first; each agrees with the theory grid's
#: entry for the class (``theory.predictions``: real diagonal, rotation, block diagonal, dense)
LEVELS = (
    ("real diagonal", "commuting, real eigenvalues", "parity (negative entries); no count mod m > 2"),
    ("2 × 2 rotations (R2)", "commuting, complex eigenvalues", "counts mod m; no non-abelian group"),
    ("b × b dense blocks", "non-commuting within a block", "S3 at b = 2 (its faithful 2-dim. representation)"),
    ("full matrix", "any transition", "any finite state machine, S5"),
)
#: Points of text on the image: the figure is drawn at its display width (``WIDTH_PX`` at ``DPI``), so these are
#: the sizes a reader sees.
LABEL_PT, DPI, WIDTH_PX = 11, 110, 760


def hierarchy():
    """BL's idea in one picture: the nested transition structures, each beside what one layer of it tracks."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig, ax = plt.subplots(figsize=(WIDTH_PX / DPI, 4.2))
    colours = (GREY, BLUE, GREEN, ORANGE)
    for i, ((name, kind, tracks), colour) in enumerate(zip(reversed(LEVELS), reversed(colours))):
        pad, top = 0.06 * i, 1 - 0.09 * i
        ax.add_patch(FancyBboxPatch((pad, 1 - top), 1.3 - 2 * pad, 2 * top - 1, boxstyle="round,pad=0.01",
                                    facecolor=colour, alpha=0.18, edgecolor=colour, lw=2))
        ax.text(pad + 0.03, top - 0.02, name, fontsize=LABEL_PT, weight="bold", va="top")
        ax.text(1.38, 0.97 - 0.25 * i, name, fontsize=LABEL_PT - 1, weight="bold", va="top")
        ax.text(1.38, 0.90 - 0.25 * i, f"{kind};\none layer tracks {tracks}", fontsize=LABEL_PT - 1, va="top")
    ax.set(xlim=(0, 3.5), ylim=(0, 1))
    ax.axis("off")
    fig.tight_layout()
    return fig


FIGURES = {
    "unit_disk": (unit_disk, "The unit disk: the eigenvalues a transition reaches in [0, 1] (blue) and in [−1, 1] "
                  "(orange), and the roots of unity counting mod 2 and mod 3 needs.",
                  "Real eigenvalues in [0, 1] reach neither −1 (parity) nor a complex root of unity (counting mod 3); "
                  "NE's change to [−1, 1] reaches −1."),
    "hierarchy": (hierarchy, "BL's transition structures, nested: a real diagonal inside 2 × 2 rotations inside "
                  "dense blocks inside full matrices, each beside what one layer of it tracks.",
                  "The more structure a transition keeps, the less one layer tracks: commuting transitions count; a "
                  "non-abelian group needs blocks as large as its smallest faithful representation (2 for S3)."),
}


def write(folder: Path) -> None:
    """Each figure as ``<name>.png`` and ``<name>.md`` (a MyST figure with alt text and caption) in ``folder``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    for name, (draw, alt, caption) in FIGURES.items():
        fig = draw()
        fig.savefig(folder / f"{name}.png", dpi=DPI)
        width = round(fig.get_figwidth() * DPI) if name == "hierarchy" else 520  # the hierarchy at its drawn size
        plt.close(fig)
        (folder / f"{name}.md").write_text(
            f"```{{figure}} _generated/{name}.png\n:alt: {alt}\n:width: {width}px\n\n{caption} Drawn when the book is built by "
            f"`statetrack.site.background_figures.{draw.__name__}`.\n```\n")
