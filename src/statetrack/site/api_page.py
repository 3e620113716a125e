"""The code page's list of modules (book/api.md), generated from the claims' declarations and the theory package, so
that a new claim or theorem module is on the page without an edit.

Used in: ``statetrack.site.book.write_generated`` (``_generated/api.md``, included by book/api.md).
"""

from __future__ import annotations

import pkgutil

import statetrack.theory
from statetrack.verdicts.registry import CLAIMS

#: The engine's modules the pages name, in reading order.
ENGINE = ("statetrack.verdicts.registry", "statetrack.verdicts.claim", "statetrack.verdicts.statements",
          "statetrack.verdicts.recipes", "statetrack.verdicts.pilots")
#: The other modules the pages name besides the claims and the theory.
OTHERS = ("statetrack.models", "statetrack.spectra", "statetrack.tasks.modular_mult")


def modules() -> dict[str, list[str]]:
    """Section → the modules it documents: the claims (each declaration), the verdict engine, the theory (the package
    and every module in it) and the rest the pages name."""
    theory = [f"statetrack.theory.{m.name}" for m in sorted(pkgutil.iter_modules(statetrack.theory.__path__),
                                                            key=lambda m: m.name)]
    return {"Claims": ["statetrack.claims", *(f"statetrack.claims.{c}.claim" for c in CLAIMS)],
            "The verdict engine": list(ENGINE),
            "Theory": ["statetrack.theory", *theory],
            "Models, spectra and tasks": list(OTHERS)}


def api_markdown() -> str:
    """The page's sections: one autodoc entry per module, its members with their docstrings."""
    lines = []
    for section, names in modules().items():
        lines += [f"## {section}", ""]
        for name in names:
            lines += [f"### `{name}`", "", "```{eval-rst}", f".. automodule:: {name}", "   :members:", "```", ""]
    return "\n".join(lines)
