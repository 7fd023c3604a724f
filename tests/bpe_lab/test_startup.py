"""``bpe_lab.startup``: the grader's and the drill's processes read notebooks without building the IRI parsers."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import subprocess
import sys
import types

import pytest

from bpe_lab import startup

INSTALLED = importlib.util.find_spec(startup.IRI_SYNTAX) is not None
GPL_CHECKER = importlib.util.find_spec("rfc3987") is not None  # jsonschema then checks IRIs with it instead

REPORT = """
import importlib.util, json, sys
import jsonschema
module = sys.modules.get("rfc3987_syntax")
deferred = type(module).__name__
spec = importlib.util.find_spec("rfc3987_syntax").name  # the real module's spec while the stand-in stands
lark = "lark" in sys.modules
checker = jsonschema.Draft7Validator.FORMAT_CHECKER
verdicts = [checker.conforms("http://example.org/a b", "iri"), checker.conforms("http://example.org/ab", "iri")]
print(json.dumps({"before": deferred, "spec": spec, "lark": lark, "verdicts": verdicts,
                  "after": type(sys.modules.get("rfc3987_syntax")).__name__}))
"""

ENTRIES = {
    "the grader": "import autograder, nbformat\n",
    "a drill's workspace": (
        "import pathlib, tempfile\nfrom bpe_lab import drill, pages\n"
        "drill.write_workspace(pages.exercise('merge'), pathlib.Path(tempfile.mkdtemp()))\n"
    ),
}


@pytest.mark.skipif(not INSTALLED, reason="rfc3987-syntax is not installed here: there is nothing to defer")
@pytest.mark.skipif(GPL_CHECKER, reason="rfc3987 is installed: jsonschema checks IRIs with it, not rfc3987-syntax")
@pytest.mark.parametrize("entry", ENTRIES, ids=list(ENTRIES))
def test_a_process_that_reads_notebooks_builds_the_iri_parsers_only_when_an_iri_is_checked(entry):
    done = subprocess.run([sys.executable, "-c", ENTRIES[entry] + REPORT], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["before"] == "_Deferred" and report["lark"] is False  # nbformat and jsonschema imported, no parser
    assert report["spec"] == startup.IRI_SYNTAX
    assert report["verdicts"] == [False, True]  # a space is no IRI: checked as jsonschema checks it
    assert report["after"] == "module"  # the real module, imported by the first check


def test_nothing_is_put_in_place_of_a_module_already_imported_or_not_installed(monkeypatch):
    real = types.ModuleType(startup.IRI_SYNTAX)
    monkeypatch.setitem(sys.modules, startup.IRI_SYNTAX, real)
    startup.defer_iri_syntax()
    assert sys.modules[startup.IRI_SYNTAX] is real
    monkeypatch.delitem(sys.modules, startup.IRI_SYNTAX)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    startup.defer_iri_syntax()
    assert startup.IRI_SYNTAX not in sys.modules


def test_the_stand_in_hands_over_to_the_real_module_on_first_use(monkeypatch):
    calls = []
    real = types.ModuleType(startup.IRI_SYNTAX)
    real.is_valid_syntax = lambda syntax, value: calls.append((syntax, value)) or " " not in value  # type: ignore[attr-defined]
    real.version = "1"  # type: ignore[attr-defined]
    monkeypatch.delitem(sys.modules, startup.IRI_SYNTAX, raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: importlib.machinery.ModuleSpec(name, None))
    startup.defer_iri_syntax()
    stand_in = sys.modules[startup.IRI_SYNTAX]
    assert isinstance(stand_in, startup._Deferred)

    def imported(name):
        sys.modules[name] = real
        return real

    monkeypatch.setattr(startup.importlib, "import_module", imported)
    assert stand_in.is_valid_syntax("iri", "a b") is False
    assert calls == [("iri", "a b")] and sys.modules[startup.IRI_SYNTAX] is real
    assert stand_in.version == "1"  # any other name, from the real module
