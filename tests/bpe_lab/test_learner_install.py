"""The learner's install alone: no answer key on disk, yet every release notebook runs with its charts and checks.

The environment (:mod:`tests.bpe_lab.learner_env`) is a fresh venv holding the learner's wheel and the
dependencies its ``learner/pyproject.toml`` names, nothing else. The notebooks run in a kernel of that venv.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.course import sample_class
from autograder.course.directory import assignments
from autograder.isolation import learner_install
from bpe_lab.selfcheck import HIDDEN_CHECKS

from . import learner_env

pytestmark = pytest.mark.slow
COURSE = learner_env.COURSE
ASSIGNMENTS = assignments(COURSE)
GRADED = set(HIDDEN_CHECKS)

RUN = r"""
import sys
import nbformat
from nbclient import NotebookClient

nb = nbformat.read(sys.argv[1], 4)
NotebookClient(nb, kernel_name="bpe-learner", timeout=300, allow_errors=True,
               resources={"metadata": {"path": sys.argv[3]}}).execute()
nbformat.write(nb, sys.argv[2])
"""


@pytest.fixture(scope="module")
def learner_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a fresh venv with only the learner's install."""
    return learner_env.build(tmp_path_factory.mktemp("learner") / "venv")


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the venv's Python as a learner would: no PYTHONPATH pointing into a checkout of the course."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run([str(python), *args], capture_output=True, text=True, cwd=cwd, timeout=900, env=env)


def _execute(python: Path, nb: nbformat.NotebookNode, where: Path) -> nbformat.NotebookNode:
    where.mkdir(parents=True, exist_ok=True)
    source, executed = where / "in.ipynb", where / "out.ipynb"
    nbformat.write(nb, source)
    done = _run(python, "-c", RUN, str(source), str(executed), str(where), cwd=where)
    assert done.returncode == 0, done.stderr[-3000:]
    return nbformat.read(executed, 4)


def _release(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(COURSE / "notebooks" / assignment / f"{assignment}.ipynb", 4)


def _grade_id(cell: nbformat.NotebookNode) -> str:
    return str(cell.metadata.get("nbgrader", {}).get("grade_id", ""))


def _errors(nb: nbformat.NotebookNode) -> list[tuple[str, str, str]]:
    return [
        (_grade_id(cell), out.get("ename", ""), out.get("evalue", ""))
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]


def _drew(cell: nbformat.NotebookNode) -> bool:
    shown = ("image/png", "image/svg+xml", "application/vnd.jupyter.widget-view+json", "text/html")
    drawn = ("display_data", "execute_result")
    return any(out.output_type in drawn and set(out.get("data", {})) & set(shown) for out in cell.outputs)


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def test_the_answer_key_is_not_importable_there(learner_python: Path, tmp_path: Path) -> None:
    names = ("bpe_ref", "autograder", "tiktoken", "nbgrader", "bpe_lab_solutions")
    probe = f"import importlib.util as u; print([n for n in {names!r} if u.find_spec(n)])"
    done = _run(learner_python, "-c", probe, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    imported = _run(learner_python, "-c", "import bpe_ref", cwd=tmp_path)
    assert "ModuleNotFoundError: No module named 'bpe_ref'" in imported.stderr


def test_the_learners_wheel_requires_the_one_list_and_the_graders_install_covers_it(learner_python: Path) -> None:
    import tomllib
    from packaging.requirements import Requirement

    probe = "import importlib.metadata as m; print(*m.requires('bpe-lab'), sep='\\n')"
    declared = _run(learner_python, "-c", probe, cwd=learner_python.parent)
    assert declared.returncode == 0, declared.stderr
    plain = [line for line in declared.stdout.splitlines() if "extra ==" not in line]  # extras: the student image's
    assert plain == learner_install.requirements()  # learner/pyproject.toml reads the list
    grader = tomllib.loads((COURSE / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    assert {str(Requirement(r)) for r in learner_install.requirements()} <= {str(Requirement(r)) for r in grader}


def test_no_graded_function_is_implemented_in_the_toolkit(learner_python: Path, tmp_path: Path) -> None:
    where = _run(learner_python, "-c", "import bpe_lab, os; print(os.path.dirname(bpe_lab.__file__))", cwd=tmp_path)
    package = Path(where.stdout.strip())
    assert package.is_dir() and "site-packages" in str(package), where.stderr
    defined = {
        (path.name, node.name)
        for path in package.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in GRADED
    }
    assert defined == set()


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_release_notebook_runs_top_to_bottom_with_its_charts(
    learner_python: Path, tmp_path: Path, assignment: str
) -> None:
    """As a learner first opens it: every error is an exercise not done yet, and every chart draws."""
    nb = _execute(learner_python, _release(assignment), tmp_path / assignment)
    for grade_id, ename, evalue in _errors(nb):
        assert ename == "NotImplementedError" or "NotImplementedError" in evalue, (grade_id, ename, evalue)
    charts = [cell for cell in nb.cells if cell.cell_type == "code" and _grade_id(cell).startswith("chart_")]
    waiting = [c for c in charts if learner_env.runs_the_learners_own(c) and "not done yet" in _printed(c)]
    assert charts and all(_drew(c) or c in waiting for c in charts), [_grade_id(c) for c in charts if not _drew(c)]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_finished_notebook_runs_clean_and_its_checks_pass(
    learner_python: Path, tmp_path: Path, assignment: str
) -> None:
    nb = _execute(learner_python, sample_class.finished(COURSE, assignment), tmp_path / assignment)
    assert _errors(nb) == []
    checks = [cell for cell in nb.cells if cell.cell_type == "code" and _grade_id(cell).startswith("check_")]
    said = ["".join(out.get("text", "") for out in cell.outputs) for cell in checks]
    assert checks and all("pass" in text for text in said), said
    assert all(_drew(c) for c in nb.cells if c.cell_type == "code" and _grade_id(c).startswith("chart_"))
    path = tmp_path / f"{assignment}.ipynb"
    nbformat.write(sample_class.finished(COURSE, assignment), path)
    cli = _run(learner_python, "-m", "bpe_lab", "check", str(path), cwd=tmp_path)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    report = json.dumps(cli.stdout)
    assert "FAIL" not in report
