"""Every table of the built site shows everything: nothing cut by pandas, no index column, no raw ``NaN``.

The detectors (``statetrack.display.tables``) are tested here on small HTML snippets, in ``make test``; the built
site is read in ``make test-book`` (marked ``book``).
"""

import pandas as pd
import pytest

from statetrack.display import tables
from statetrack.site import audit

ROWS = "".join(f"<tr><td>{i}</td><td>x</td></tr>" for i in range(3))


def _one(snippet: str) -> audit.Table:
    (t,) = audit.tables_in(snippet)
    return t


def test_a_row_of_dots_is_a_cut_table_and_a_plain_row_is_not():
    cut = '<table class="dataframe"><tbody>' + ROWS + "<tr><td>...</td><td>...</td></tr>" + ROWS + "</tbody></table>"
    assert audit.truncated(_one(cut))
    assert not audit.truncated(_one('<table class="dataframe"><tbody>' + ROWS + "</tbody></table>"))
    assert audit.truncated(_one('<table class="dataframe"><thead><tr><th>a</th><th>...</th></tr></thead>'
                                 "<tbody><tr><td>1</td><td>...</td></tr></tbody></table>"))
    cell = "x" * 47 + "..."  # pandas cut a long text to display.max_colwidth
    assert audit.truncated(_one(f'<table class="dataframe"><tbody><tr><td>{cell}</td></tr></tbody></table>'))
    assert not audit.truncated(_one('<table class="dataframe"><tbody><tr><td>and so on...</td></tr></tbody></table>'))


def test_pandas_index_is_an_index_column_and_a_page_table_is_not():
    with_index = pd.DataFrame({"a": [1, 2]}).to_html()
    assert audit.indexed(_one(with_index))
    assert audit.indexed(_one(pd.DataFrame({"a": [1, 2]}, index=["x", "y"]).to_html()))
    assert not audit.indexed(_one(tables.html(pd.DataFrame({"a": [1, 2]}))))
    sphinx = '<table class="table"><thead><tr><th class="head"><p>a</p></th></tr></thead><tbody>' + ROWS + "</tbody></table>"
    assert not audit.indexed(_one(sphinx))  # a markdown table of a page


def test_a_raw_nan_cell_is_named_and_a_dash_is_not():
    frame = pd.DataFrame({"a": [1.0, float("nan")], "b": pd.Series(["x", None], dtype=object)})
    assert sorted(audit.raw_missing(_one(frame.to_html(index=False)))) == ["NaN", "None"]
    assert audit.raw_missing(_one(tables.html(frame))) == []
    assert audit.raw_missing(_one("<table><tbody><tr><td>nan</td><td>banana</td></tr></tbody></table>")) == ["nan"]


def test_a_long_table_is_folded_not_cut_and_a_meaningful_index_becomes_a_column():
    frame = pd.DataFrame({"outcome": ["holds"] * 30 + ["fails"]}, index=pd.Index(range(31), name="run"))
    page = tables.html(frame)
    (t,) = audit.tables_in(page)
    assert t.folded and len(t.body) == 31 and not audit.truncated(t) and not audit.indexed(t)
    assert [h for _, h in t.head[0]] == ["run", "outcome"] and "<summary>all 31 rows</summary>" in page
    assert not audit.tables_in(tables.html(frame.head(3)))[0].folded
    pivot = pd.DataFrame({"a": [1, 1], "dtype": ["x", "y"], "v": [1, 2]}).pivot(index="a", columns="dtype", values="v")
    assert audit.indexed(_one(pivot.to_html(index=False)))  # pandas keeps a row-label cell for the columns' name
    assert not audit.indexed(_one(tables.html(pivot)))


def test_all_passing_checks_are_one_line_and_failing_ones_are_named():
    checks = pd.DataFrame({"check": ["a", "b", "c"], "holds": [True, True, True]})
    shown = tables.checks(checks)._repr_html_()
    assert "All 3 checks hold." in shown and audit.tables_in(shown)[0].folded
    checks.loc[1, "holds"] = False
    shown = tables.checks(checks)._repr_html_()
    first = audit.tables_in(shown)[0]
    assert "1 of 3 checks fail" in shown and not first.folded and [r[0][1] for r in first.body] == ["b"]


@pytest.mark.book
def test_no_table_of_the_built_site_hides_a_row_an_index_or_a_missing_value(built_site):
    pages = sorted(p for p in built_site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)
    audits = audit.audit_pages((str(p.relative_to(built_site)), p.read_text(errors="replace")) for p in pages)
    bad = {name: a.problems() for name, a in audits.items() if a.problems()}
    assert sum(a.tables for a in audits.values()), "the site has no table at all"
    assert not bad, "; ".join(f"{name}: {', '.join(p)}" for name, p in bad.items())


def test_the_page_shows_the_parameters_it_ran_with_once_folded(tmp_path):
    import nbformat

    from statetrack.site.book import fold_injected

    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb.cells = [nbformat.v4.new_code_cell("PRESET = 'quick'", metadata={"tags": ["parameters", "hide-cell"]}),
                nbformat.v4.new_code_cell("# Parameters\nPRESET = 'smoke'", metadata={"tags": ["injected-parameters"]}),
                nbformat.v4.new_code_cell("x = 1")]
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, path)
    fold_injected(path)
    shaped = nbformat.read(path, as_version=4)
    cells = shaped.cells
    assert "widgets" not in shaped.metadata  # no page loads the ipywidgets runtime
    tags = [c.metadata.get("tags", []) for c in cells]
    assert tags == [["parameters", "hide-cell", "remove-cell"], ["injected-parameters", "hide-cell"], []]
    assert cells[1].metadata["mystnb"]["code_prompt_show"] == "Show the parameters this page ran with"


def test_a_truth_value_is_a_word_and_a_missing_one_a_dash():
    frame = pd.DataFrame({"check": ["a", "b", "c"], "holds": [True, False, None], "n": [1, 2, 3]})
    cells = [text for row in _one(tables.html(frame)).body for _, text in row]
    assert cells == ["a", "yes", "1", "b", "no", "2", "c", "–", "3"]
    assert not {"True", "False"} & set(cells)


def test_a_styled_table_can_be_folded_whole():
    styler = pd.DataFrame({"cell": [f"c{i}" for i in range(30)]}).style.hide(axis="index")
    shown = tables.Folded(styler, "all 30 cells")._repr_html_()
    (t,) = audit.tables_in(shown)
    assert t.folded and len(t.body) == 30 and not audit.long_open(t) and "<summary>all 30 cells</summary>" in shown


@pytest.mark.parametrize("x,shown", [(44964.5247, "45,000"), (14.458, "14.5"), (99.96, "100"), (1230.0, "1,230"),
                                     (-0.00164, "-0.002"), (1.0, "1.000"), (7.991, "7.991"), (-25.55, "-25.6")])
def test_a_table_prints_scores_to_3_decimals_and_larger_numbers_to_3_significant_figures(x, shown):
    frame = pd.DataFrame({"what": ["x"], "value": [x]})
    assert [text for row in _one(tables.html(frame)).body for _, text in row] == ["x", shown]


def test_a_figures_source_line_counts_the_runs_it_reads():
    from statetrack.display.page import source_line

    records = [{"key": "a"}, {"key": "b"}, {"key": "a"}]
    assert source_line(records) == "From 2 trained runs (run records in data/results/)."
    rows = pd.DataFrame({"panel": ["p", "p", "q", "q"], "seed": [0, 0, 0, 1], "token": [0, 1, 0, 0]})
    assert source_line(rows).startswith("From 3 trained runs")  # (p, 0), (q, 0), (q, 1)
    assert source_line(rows.head(1)).startswith("From 1 trained run ")
    assert "no trained run" in source_line(None)


def test_a_figures_source_line_sits_below_its_legends():
    """``place_source`` puts the line under everything drawn, a two-row legend at the figure's foot included, as the
    page's image is saved (a tight bounding box, which re-anchors a figure legend to the grown edge): the boxes are
    matplotlib's own, read in the draw of that save."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from statetrack.display.page import place_source

    fig, (a, b) = plt.subplots(1, 2, figsize=(6, 3))
    for k in range(3):
        a.plot([0, 1], [0, k], label=f"a line with a long label {k}")
    b.plot([0, 1], [1, 0], label="two")
    b.legend(loc="lower right")
    fig.legend(*a.get_legend_handles_labels(), loc="lower center", ncol=2)  # two rows
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    text = place_source(fig, "From 2 trained runs (run records in data/results/).")
    drawn = []

    def boxes(event):
        r = event.renderer
        drawn.append((text.get_window_extent(r), [g.get_window_extent(r) for g in (fig.legends[0], b.get_legend())],
                      min(ax.get_tightbbox(r).y0 for ax in fig.axes)))

    fig.canvas.mpl_connect("draw_event", boxes)
    fig.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    box, legends, lowest_axes = drawn[-1]
    assert all(box.y1 <= legend.y0 for legend in legends)
    assert box.y1 <= lowest_axes
    plt.close(fig)


def test_the_runbook_gives_each_paper_table_its_command_and_a_clone_line(monkeypatch):
    """``site.paper_recipes``: a row per table a statement of the papers cites, whose command names its claims and
    the table as ``--source`` takes it, with NE's 24 h a run as the bound; the clone line uses the repository the
    build knows, else the checkout itself."""
    import shlex

    from statetrack.runs.store import run_key
    from statetrack.site.paper_recipes import clone_markdown, recipes
    from statetrack.verdicts.plan import plan

    every = plan(["ne1", "ne4", "bl8"], "paper")
    rows = {r["source"]: r for r in recipes(every)}
    assert set(rows) == {"NE Table 3", "NE Table 5"}  # bl8's statement is ours: no paper table of its own
    t3 = rows["NE Table 3"]
    argv = shlex.split(t3["command"])
    assert argv[:4] == ["statetrack", "sweep", "ne1", "ne4"] and argv[argv.index("--source") + 1] == "NE Table 3"
    assert t3["runs"] == len({run_key(it.cfg) for it in plan(["ne1", "ne4"], "paper", source="NE Table 3")})
    monkeypatch.delenv("STATETRACK_REPOSITORY", raising=False)
    assert "git clone" not in clone_markdown()
    monkeypatch.setenv("STATETRACK_REPOSITORY", "owner/statetrack")
    monkeypatch.setenv("STATETRACK_COMMIT", "abc123")
    assert "git clone https://github.com/owner/statetrack statetrack" in clone_markdown()
    assert "git checkout abc123" in clone_markdown()


def test_a_count_among_accuracies_prints_without_decimals():
    """A column mixing accuracies and counts (an exact check's value): 2.0 is "2", 1.0 and 0.5 keep three decimals,
    1234.0 is "1,234" (computed here by hand)."""
    frame = pd.DataFrame({"check": list("abcd"), "value": [1.0, 2.0, 0.5, 1234.0]})
    (t,) = audit.tables_in(tables.html(frame))
    assert [row[1][1] for row in t.body] == ["1.000", "2", "0.500", "1,234"]


def test_a_notebooks_last_run_time_is_papermills_record(tmp_path):
    """``book.last_seconds`` (the order ``execute_notebooks`` starts them in) reads the duration papermill wrote
    into the executed notebook; a notebook never executed, or a corrupt one, counts 0."""
    import json

    from statetrack.site.book import last_seconds, notebook_source

    (tmp_path / f"{notebook_source('ne3').stem}.ipynb").write_text(json.dumps(
        {"metadata": {"papermill": {"duration": 36.5}}, "cells": []}))
    (tmp_path / f"{notebook_source('x2').stem}.ipynb").write_text("{not json")
    assert last_seconds("ne3", tmp_path) == 36.5
    assert last_seconds("x2", tmp_path) == 0.0 and last_seconds("ne1", tmp_path) == 0.0
    assert sorted(["ne1", "ne3", "x2"], key=lambda i: -last_seconds(i, tmp_path))[0] == "ne3"


def test_an_explorer_carries_its_html_copy_outside_a_book_build_only(monkeypatch):
    """An explorer's output: the Vega-Lite spec and a text line always; the self-contained HTML copy (for a notebook
    front end without a Vega-Lite renderer) only outside a book build, whose pages render the spec."""
    import altair as alt

    from statetrack.display.explorers import BUILDING, MIME, Explorer

    chart = alt.Chart(pd.DataFrame({"x": [0, 1], "y": [1, 0]})).mark_line().encode(x="x:Q", y="y:Q")
    monkeypatch.delenv(BUILDING, raising=False)
    assert {MIME, "text/plain", "text/html"} <= set(Explorer(chart)._repr_mimebundle_())
    monkeypatch.setenv(BUILDING, "1")
    bundle = Explorer(chart)._repr_mimebundle_()
    assert set(bundle) == {MIME, "text/plain"} and bundle[MIME]["mark"]["type"] == "line"


def test_equal_series_stay_visible_in_the_length_and_sweep_figures():
    """Where two series score the same, neither hides the other: in ``seq_acc_panels`` the [0,1] run is drawn dashed
    above the [-1,1] one; in bl8's ``frozen_success`` two settings with equal rates sit apart along H (by less than
    a tenth of an octave) with different markers."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from statetrack.claims.bl8.page import frozen_success
    from statetrack.display.word_problem_figures import seq_acc_panels

    lengths = [1, 2, 3, 4]
    frame = pd.DataFrame([{"panel": "p", "series": f"DeltaNet {e}", "depth": 1, "key": e, "length": n, "seq_acc": 0.0,
                           "family": "deltanet", "eig_range": e} for e in ("[-1,1]", "[0,1]") for n in lengths])
    fig = seq_acc_panels(frame, ["p"], {"p": "p"}, {"p": 2})
    neg, pos = fig.axes[0].get_lines()[:2]
    assert pos.get_zorder() > neg.get_zorder() and pos.get_linestyle() != "-" and neg.get_linestyle() == "-"
    plt.close(fig)
    rows = pd.DataFrame([{"H": h, "setting": s, "success": 0.5, "predicted": float("nan"), "lo": 0.4, "hi": 0.6}
                         for s in ("a", "b") for h in (1, 2, 4)])
    fig = frozen_success(rows)
    a, b = [line for line in fig.axes[0].get_lines() if line.get_marker() not in (None, "None", "_")][:2]
    assert a.get_marker() != b.get_marker()
    ratio = [xb / xa for xa, xb in zip(a.get_xdata(), b.get_xdata())]
    assert all(1 < r < 2 ** 0.1 for r in ratio)
    plt.close(fig)
