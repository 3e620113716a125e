"""A local Sphinx extension: the code page (book/api.md) shows each docstring as it is written.

The package's docstrings are plain text (tables drawn with ``|``, ``|Q|`` for a set's size), not
reStructuredText; parsed as reST they would raise warnings, which the book treats as errors. Each
docstring autodoc collects becomes one plain-text literal block instead (not highlighted as code).
With ``sphinx.ext.viewcode`` every documented module gets a highlighted source page, linked from its
entries.

Used in: _config.yml (``sphinx.local_extensions``).
"""


def _as_literal(app, what, name, obj, options, lines):
    if lines:
        lines[:] = [".. code-block:: text", ""] + ["   " + line for line in lines] + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _as_literal)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
