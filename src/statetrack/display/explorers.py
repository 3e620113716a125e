"""Explorers that work without a kernel: Vega-Lite charts whose controls filter data computed when the page is built.

An explorer is an Altair chart over a table computed by the package (from the committed records or the theory),
with its controls bound to Vega-Lite parameters (``select``, ``radio``, ``slider``). Moving a control filters or
re-encodes that table in the reader's browser: nothing is recomputed, so a page works as a static file. What a
reader types belongs to an exercise cell, which needs a kernel (Colab, Binder, ``make lab``).

- ``Explorer(chart)``: what a page's cell returns. It shows as Vega-Lite in every front end: the book renders
  the ``application/vnd.vegalite.v6+json`` output itself (``VegaLitePlugin``), with the scripts it serves on
  the pages that have an explorer (``book/_ext/site_fixes.py``, ``book/_ext/static/explorers.js``); Jupyter and
  Colab get Altair's own HTML as well.
- ``select``, ``radio``, ``slider``: a named control bound to a parameter; ``picked(param, field)``: the
  filter that keeps the rows the control names; ``thin``: at most so many test lengths (or steps) per line;
  ``text_grid``/``step_grid``: a table of text per step (a model's state and answer after every token) for a
  chosen input.
- ``VegaLitePlugin``: MyST-NB's MIME renderer for the Vega-Lite output (entry point
  ``myst_nb.mime_renderers``, pyproject.toml).

Used in: the page modules (``statetrack.claims``), ``display.records_browser``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import altair as alt

from statetrack.display.plots import COLORS, explorer

MIME = f"application/vnd.vegalite.{alt.SCHEMA_VERSION.split('.')[0]}+json"

#: the class the book's script looks for (book/_ext/static/explorers.js) and its pages test for
CSS_CLASS = "statetrack-explorer"

WIDTH = 520  # px: the plot area of a one-panel explorer in the book's article column (legend beside it)


class Explorer:
    """A chart that shows as Vega-Lite: ``Explorer(chart)``, where ``chart`` is an Altair chart with bound
    parameters; ``spec`` is its Vega-Lite specification (data inlined)."""

    def __init__(self, chart: alt.TopLevelMixin, label: str = "explorer"):
        self.chart = chart
        self.label = label
        self.spec: dict[str, Any] = chart.to_dict()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        """The Vega-Lite spec and a line of text; outside a book build also a self-contained HTML copy, for a
        notebook front end without a Vega-Lite renderer (the book renders the spec: ``VegaLitePlugin``)."""
        import os

        bundle = {MIME: self.spec, "text/plain": f"<{self.label}: a Vega-Lite chart>"}
        if os.environ.get(BUILDING):
            return bundle
        try:
            bundle["text/html"] = self.chart.to_html(fullhtml=False)
        except Exception:  # noqa: BLE001 — the Vega-Lite output alone still shows in the book and JupyterLab
            pass
        return bundle

    def controls(self) -> list[dict[str, Any]]:
        """The spec's bound parameters (name, bind), in order: what a reader can move."""
        return [p for p in _params(self.spec) if "bind" in p]


def _params(spec: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(spec.get("params", []))
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for sub in spec.get(key, []):
            found += _params(sub)
    if "spec" in spec:
        found += _params(spec["spec"])
    return found


def select(name: str, options: Sequence[Any], value: Any = None, label: str | None = None,
           labels: Sequence[str] | None = None) -> alt.Parameter:
    """A drop-down control named ``name`` over ``options`` (shown as ``labels``), starting at ``value``."""
    options = list(options)
    bind = alt.binding_select(options=options, name=f"{label or name} ",
                              **({"labels": list(labels)} if labels is not None else {}))
    return alt.param(name=name, value=options[0] if value is None else value, bind=bind)


def radio(name: str, options: Sequence[Any], value: Any = None, label: str | None = None,
          labels: Sequence[str] | None = None) -> alt.Parameter:
    """Radio buttons named ``name`` over ``options`` (shown as ``labels``), starting at ``value``."""
    options = list(options)
    bind = alt.binding_radio(options=options, name=f"{label or name} ",
                             **({"labels": list(labels)} if labels is not None else {}))
    return alt.param(name=name, value=options[0] if value is None else value, bind=bind)


def slider(name: str, lo: float, hi: float, step: float, value: float, label: str | None = None) -> alt.Parameter:
    """A range slider named ``name`` from ``lo`` to ``hi`` in steps of ``step``, starting at ``value``."""
    return alt.param(name=name, value=value, bind=alt.binding_range(min=lo, max=hi, step=step, name=f"{label or name} "))


def thin(frame, column: str, most: int = 60, keep: Sequence[Any] = ()):
    """``frame``'s rows at no more than ``most`` values of ``column`` (evenly spaced over its sorted distinct
    values, the first and last included, plus any in ``keep``): an explorer's data stays small, and every
    group keeps the same values, so lines stay comparable."""
    import numpy as np

    values = sorted(frame[column].unique())
    if len(values) <= most:
        return frame
    chosen = {values[int(i)] for i in np.linspace(0, len(values) - 1, most).round()} | set(keep)
    return frame[frame[column].isin(chosen)]


def picked(param: alt.Parameter, field: str) -> str:
    """The filter keeping rows whose ``field`` equals the control's value (a Vega expression)."""
    return f"datum[{json.dumps(field)}] == {param.name}"


WRONG, RIGHT = COLORS[1], "#222222"  # a text grid's answer that differs from the truth, and one that agrees


def text_grid(long, keep: Sequence[str], rows: Sequence[str], step: str = "step", step_title: str = "step",
              width: int = WIDTH) -> alt.Chart:
    """A table drawn as text, one column per step and one row per quantity: the rows of ``long`` (columns ``step``,
    quantity, value, and optionally ``wrong``, drawn red) that pass the Vega filters ``keep`` (the controls'
    ``picked``), the quantities in the order ``rows``."""
    chart = alt.Chart(long)
    for expr in keep:
        chart = chart.transform_filter(expr)
    colour = {"color": alt.Color("wrong:N", scale=alt.Scale(domain=[False, True], range=[RIGHT, WRONG]),
                                 legend=None)} if "wrong" in long.columns else {}
    return chart.mark_text(fontSize=12).encode(
        x=alt.X(f"{step}:O", title=step_title, axis=alt.Axis(orient="top", labelAngle=0, labelFontSize=11,
                                                            titleFontSize=12)),
        y=alt.Y("quantity:N", title=None, sort=list(rows), axis=alt.Axis(labelFontSize=12, labelLimit=220)),
        text="value:N", **colour).properties(width=width, height=26 * len(rows))


def step_grid(frame, param: alt.Parameter, field: str, rows: Sequence[str], step_title: str = "step",
              width: int = WIDTH) -> alt.Chart:
    """``text_grid`` of ``frame``'s rows (columns ``field``, step, quantity, value) whose ``field`` is the control's
    value; the control is added to the chart."""
    return text_grid(frame, [picked(param, field)], rows, "step", step_title, width).add_params(param)


class VegaLitePlugin:
    """MyST-NB renders a Vega-Lite output as a ``<div>`` holding its spec, which the book's script embeds."""

    mime_priority_overrides = [("html", MIME, 1), ("dirhtml", MIME, 1), ("singlehtml", MIME, 1)]

    @staticmethod
    def handle_mime(renderer, data, inline):
        from docutils import nodes

        if inline or data.mime_type != MIME:
            return None
        spec = data.content if isinstance(data.content, str) else json.dumps(data.content)
        spec = spec.replace("</", "<\\/")  # a string in the data cannot close the script element
        return [nodes.raw("", f'<div class="{CSS_CLASS}"><script type="application/json">{spec}</script></div>',
                          format="html")]


#: set while ``site.book.execute_notebook`` runs a page for the book: exercise cells then show how to open a kernel
BUILDING = "STATETRACK_BUILDING_PAGE"


def exercise(controls, draw, what: str):
    """An exercise cell's live controls (ipywidgets, ``plotting.explorer``) in a kernel; on the book's pages, which have
    none, a line saying where to run it (``what``: what the reader types)."""
    import os

    from IPython.display import Markdown

    if os.environ.get(BUILDING):
        return Markdown(f"*Exercise: {what}. This cell needs a running kernel: open the page in Colab or Binder "
                        "(the rocket button at the top), or locally with `make lab`, and run it there.*")
    return explorer(controls, draw)
