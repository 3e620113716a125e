"""Count the claim notebooks' code: lines of code per notebook, and the four-line stretches that recur in three or
more notebooks (what a page helper would absorb).

A line of code is a non-blank line of a code cell that is not only a comment; a stretch is four consecutive such
lines of one cell, compared with their indentation stripped, counted once per notebook.

    python benchmarks/notebook_code.py [notebooks]            # per notebook, the totals, then each stretch
    python benchmarks/notebook_code.py notebooks --totals     # the totals only
"""

import sys
from collections import defaultdict
from pathlib import Path

import jupytext

SPAN, NOTEBOOKS = 4, 3  # a stretch's lines; the notebooks it must recur in


def code_lines(cell_source: str) -> list[str]:
    """A code cell's lines of code, indentation stripped: non-blank lines that are not only a comment."""
    return [s for s in (line.strip() for line in cell_source.splitlines()) if s and not s.startswith("#")]


def notebook_cells(path: Path) -> list[list[str]]:
    """Each code cell of a MyST notebook as its lines of code."""
    return [code_lines(c.source) for c in jupytext.read(path).cells if c.cell_type == "code"]


def stretches(cells: list[list[str]], span: int = SPAN) -> set[tuple[str, ...]]:
    """Every run of ``span`` consecutive lines of code inside one cell."""
    return {tuple(c[i:i + span]) for c in cells for i in range(len(c) - span + 1)}


def count(folder: str = "notebooks") -> tuple[dict[str, int], dict[tuple[str, ...], list[str]]]:
    """Lines of code per notebook, and each stretch found in at least ``NOTEBOOKS`` notebooks → those notebooks."""
    lines, where = {}, defaultdict(list)
    for path in sorted(Path(folder).glob("*.md")):
        cells = notebook_cells(path)
        lines[path.stem] = sum(len(c) for c in cells)
        for s in stretches(cells):
            where[s].append(path.stem.split("_")[0])
    return lines, {s: ids for s, ids in where.items() if len(ids) >= NOTEBOOKS}


def main(folder: str = "notebooks", *flags: str) -> None:
    lines, repeated = count(folder)
    if "--totals" not in flags:
        for name, n in lines.items():
            print(f"{name:50s} {n:5d}")
    print(f"{len(lines)} notebooks, {sum(lines.values())} lines of code, {len(repeated)} stretches of {SPAN} lines "
          f"in {NOTEBOOKS} or more notebooks")
    if "--totals" not in flags:
        for s, ids in sorted(repeated.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"\n{len(ids)} notebooks ({', '.join(ids)}):\n    " + "\n    ".join(s))


if __name__ == "__main__":
    main(*sys.argv[1:])
