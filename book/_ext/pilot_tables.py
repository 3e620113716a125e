"""A local Sphinx extension: the ``pilot-table`` directive renders the recorded recipe pilots as a table.

The table is built from the committed run records when the book is built (``statetrack.verdicts.pilots.frame``), so
the recipes chapter carries no number typed by hand. Used in: book/recipes.md.
"""

from docutils import nodes
from docutils.parsers.rst import Directive


def _table(frame) -> nodes.table:
    frame = frame.reset_index()
    table, group = nodes.table(), nodes.tgroup(cols=len(frame.columns))
    table += group
    group += [nodes.colspec(colwidth=1) for _ in frame.columns]

    def row(cells):
        out = nodes.row()
        for text in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=str(text))
            out += entry
        return out

    head, body = nodes.thead(), nodes.tbody()
    head += row(frame.columns)
    for values in frame.itertuples(index=False):
        body += row(values)
    group += [head, body]
    return table


class PilotTable(Directive):
    """``pilot-table``: every claim's recipe pilots, or those of the claim ids given as arguments."""

    optional_arguments = 20

    def run(self):
        from statetrack.verdicts import pilots  # at build time only: Sphinx loads this extension before the package's
        from statetrack.verdicts.registry import CLAIMS, piloted  # environment is needed

        claims = [CLAIMS[c] for c in self.arguments] or piloted()
        return [_table(pilots.frame(claims, one=bool(self.arguments)))]


def setup(app):
    app.add_directive("pilot-table", PilotTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
