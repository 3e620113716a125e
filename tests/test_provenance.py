"""The code hash follows the code, not its comments: executable_source, code_hash, and the migration of old records."""

import ast
import json
import textwrap

import pytest

from statetrack.runs import provenance
from statetrack.runs.migrate import migrate_code_hashes
from statetrack.runs.provenance import code_hash, executable_source, whole_file_hash
from statetrack.runs.store import read_record, write_record

BASE = textwrap.dedent('''\
    """Module docstring: Eq. (1), h_t = a h_{t-1} + b."""
    import math  # a comment


    def step(h, a, b):
        """h_t = a·h_{t−1} + b (a docstring with non-ASCII text: ≥ × −)."""
        # why: nothing
        return a * h + b  # trailing comment


    class Rule:
        """A class docstring."""

        scale = "# not a comment"

        def apply(self, x):
            return x * 2
    ''')


def _without_docstrings(text: str) -> str:
    """Independent reference: the AST with every docstring removed (comments never reach the AST)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


@pytest.mark.parametrize("edit, same", [
    pytest.param(lambda s: s.replace("# a comment", "# another comment, longer"), True, id="comment"),
    pytest.param(lambda s: s.replace("# why: nothing", "# why: see Eq. (2) ≥ 0"), True, id="comment-line"),
    pytest.param(lambda s: s.replace("a docstring with", "a rewritten\n    docstring with"), True, id="docstring"),
    pytest.param(lambda s: s.replace('"""A class docstring."""', '"""A class docstring.\n\n    More."""'), True,
                 id="class-docstring"),
    pytest.param(lambda s: s.replace("def step", "\n\ndef step"), True, id="blank-lines"),
    pytest.param(lambda s: s.replace("return a * h + b", "return a * h - b"), False, id="changed-line"),
    pytest.param(lambda s: s.replace("x * 2", "x * 3"), False, id="changed-constant"),
    pytest.param(lambda s: s.replace('"# not a comment"', '"# not a comment!"'), False, id="hash-inside-a-string"),
    pytest.param(lambda s: s + "\n\ndef unused():\n    return 1\n", False, id="new-function"),
])
def test_a_comment_or_docstring_edit_keeps_the_source_a_code_edit_changes_it(tmp_path, edit, same):
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(BASE)
    after.write_text(edit(BASE))
    assert (_without_docstrings(BASE) == _without_docstrings(after.read_text())) is same  # the reference agrees
    assert (executable_source(before) == executable_source(after)) is same


def test_executable_source_drops_comments_docstrings_and_blank_lines(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(BASE)
    src = executable_source(path)
    assert "comment" not in src.replace('"# not a comment"', "") and "docstring" not in src
    assert "" not in src.splitlines() and '"# not a comment"' in src
    assert ast.dump(ast.parse(src)).count("FunctionDef") == 2  # still the same code


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path))
    return tmp_path


def _fake(store, name, cfg, stored_hash):
    from statetrack.runs.store import SCHEMA_VERSION, run_key

    rec = {"schema": SCHEMA_VERSION, "key": run_key(cfg), "claim": "demo", "preset": "smoke", "config": cfg.to_dict(),
           "status": "ok", "summary": {"chance": 0.5, "id_acc": 1.0, "ood_acc": 0.75, "ood_normalized": 0.5},
           "provenance": {"code_hash": stored_hash}}
    path = store / "demo" / f"{name}.json"
    write_record(path, rec)
    return path


def test_migration_rewrites_records_of_this_code_and_leaves_stale_ones(store):
    from statetrack.claims.ne1 import claim as ne1

    cfg = ne1.grid("smoke")[0]
    assert whole_file_hash(cfg) != code_hash(cfg)  # the package's files have comments and docstrings
    old = _fake(store, "old", cfg, whole_file_hash(cfg))
    other = _fake(store, "other", cfg, "000000000000")
    assert read_record(old)["stale"] and read_record(other)["stale"]
    before = json.loads(old.read_text())
    assert migrate_code_hashes() == {"migrated": 1, "current": 0, "stale": 1}
    after = json.loads(old.read_text())
    assert after["provenance"]["code_hash"] == code_hash(cfg) and not read_record(old)["stale"]
    after["provenance"]["code_hash"] = before["provenance"]["code_hash"]
    assert after == before  # nothing else moved
    assert read_record(other)["stale"]
    assert migrate_code_hashes() == {"migrated": 0, "current": 1, "stale": 1}  # idempotent
