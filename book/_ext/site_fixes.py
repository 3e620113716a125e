"""A local Sphinx extension: fixes to the pages Jupyter Book 1 emits, each found by the browser test.

- JB1 registers sphinx-thebe's inline configuration script twice, so every page threw
  "Identifier 'THEBE_JS_URL' has already been declared" in the console: identical inline scripts are
  kept once.
- The widget embedder calls MathJax 2's ``MathJax.Hub.Queue``; the book serves MathJax 3: a small shim
  (``static/mathjax2_shim.js``, loaded after MathJax) maps it onto ``typesetPromise``.
- Jupyter Book 1 numbers figures book-wide ("Fig. 9" on ne4's second figure) whatever ``numfig`` says in
  _config.yml; the numbers read like the papers' figures, so captions carry none.
- Wide tables ran past the article (bl3's verdict table cut its last column at 1,400 px) and printed tables ran many
  screens tall: ``static/tables.css`` makes each scroll inside its own box.

Used in: _config.yml (``sphinx.local_extensions``); tested by tests/test_browser.py.
"""

import os


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        # The two copies differ only in filename None versus "" (both mean an inline script).
        key = (getattr(js, "filename", None) or "", tuple(sorted((getattr(js, "attributes", None) or {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    # In place: it is the builder's own list, to which page-level scripts (MathJax, the widget embedder) are
    # added by handlers that run after this one; a new list would lose them.
    context["script_files"][:] = kept


def _no_figure_numbers(app, config):
    config.numfig = False  # Jupyter Book 1 turns it on after reading _config.yml


def _static_path(app):
    app.config.html_static_path.append(os.path.join(os.path.dirname(__file__), "static"))


def setup(app):
    app.connect("builder-inited", _static_path)
    app.connect("config-inited", _no_figure_numbers, priority=900)
    app.add_js_file("mathjax2_shim.js", loading_method="defer", priority=800)
    app.add_css_file("tables.css")
    # Early: html-page-context is emitted with emit_firstresult, so a theme handler that returns a value
    # would stop the chain before a late handler; the duplicates are app-level, present from the start.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
