"""The students' image of a graded course, exactly as documented: ``pip install './learner[student]'`` then
``deploy/student-image/configure.sh``, in a fresh venv (:mod:`tests.bpe_lab.learner_env`, no network).

It must hold the learner's toolkit and nbgrader's student side (the Assignments tab's server extension loads, its
lab extension is on), and nothing of the grader: no ``bpe_ref``, no ``autograder``, no hidden tests, no formgrader.
The JupyterHub test (tests/browser/test_jupyterhub.py) runs a student's server from this same environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from . import learner_env

pytestmark = pytest.mark.slow
COURSE = learner_env.COURSE
CONFIGURE = COURSE / "deploy" / "student-image" / "configure.sh"


def build(dest: Path, also: tuple[str, ...] = ()) -> Path:
    """The student image in ``dest`` (a venv): the learner's wheel with its ``student`` extra, then configure.sh.
    Returns its Python."""
    python = learner_env.build(dest, extras=("student",), also=also)
    done = subprocess.run(
        ["sh", str(CONFIGURE)], env={**_env(), "PYTHON": str(python)}, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python


def _env(**extra: str) -> dict[str, str]:
    """A student's environment: no PYTHONPATH into a checkout, no Jupyter folders of this machine's user."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME") and not k.startswith("JUPYTER")}
    return {**env, **extra}


@pytest.fixture(scope="module")
def student_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("student-image") / "venv")


def _run(python: Path, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), *args], capture_output=True, text=True, cwd=cwd, timeout=300, env=_env(HOME=str(cwd), **env)
    )


def test_the_extra_asks_for_nbgrader_and_the_image_has_nothing_of_the_grader(student_python: Path, tmp_path: Path):
    probe = (
        "import importlib.util as u, importlib.metadata as m; "
        "print([n for n in ('bpe_ref', 'autograder', 'tiktoken', 'subword_nmt') if u.find_spec(n)]); "
        "print(m.version('nbgrader')); print(*m.requires('bpe-lab'), sep='\\n')"
    )
    done = _run(student_python, "-c", probe, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    absent, version, *requires = done.stdout.splitlines()
    assert absent == "[]"
    assert version
    assert any(line.startswith("nbgrader") and 'extra == "student"' in line for line in requires), requires


def test_no_hidden_test_and_no_source_notebook_is_in_the_image(student_python: Path, tmp_path: Path):
    """The toolkit's own files (all the course puts there) hold no hidden-test block and no call of a hidden check."""
    where = _run(student_python, "-c", "import bpe_lab, os; print(os.path.dirname(bpe_lab.__file__))", cwd=tmp_path)
    package = Path(where.stdout.strip())
    assert package.is_dir() and package.is_relative_to(student_python.parents[1]), where.stderr
    files = [p for p in package.rglob("*") if p.is_file()]
    assert files
    found = []
    for path in files:
        data = path.read_bytes()
        if b"BEGIN HIDDEN TESTS" in data or b"check_merge(" in data or b"from autograder" in data:
            found.append(path.name)
    assert found == []
    assert not list(student_python.parents[1].rglob("solutions"))


def _switches(said: str) -> dict[str, tuple[str, str]]:
    """``jupyter server extension list``'s answer: each extension's switch (enabled/disabled) and its check (OK)."""
    said = re.sub(r"\x1b\[[0-9;]*m", "", said)
    switch = dict(re.findall(r"^ {4}(\S+) (enabled|disabled)$", said, re.M))
    check = {name: "OK" for name in re.findall(r"^ {6}(\S+) (?:\S+ )?\s*OK$", said, re.M)}
    return {name: (state, check.get(name, "")) for name, state in switch.items()}


def test_the_assignments_tab_is_on_and_the_formgrader_is_off(student_python: Path, tmp_path: Path):
    servers = _run(student_python, "-m", "jupyter_server", "extension", "list", cwd=tmp_path)
    assert servers.returncode == 0, servers.stderr
    switches = _switches(servers.stdout + servers.stderr)
    assert switches["nbgrader.server_extensions.assignment_list"] == ("enabled", "OK")  # on, and it loads
    assert switches["nbgrader.server_extensions.course_list"] == ("enabled", "OK")
    assert switches["nbgrader.server_extensions.formgrader"][0] == "disabled"
    handler = _run(student_python, "-c", "import nbgrader.server_extensions.assignment_list.handlers", cwd=tmp_path)
    assert handler.returncode == 0, handler.stderr
    labs = _run(student_python, "-m", "jupyterlab.labextensions", "list", cwd=tmp_path)
    said = re.sub(r"\x1b\[[0-9;]*m", "", labs.stdout + labs.stderr)
    assert re.search(r"@jupyter/nbgrader v\S+ enabled OK", said), said
    # JupyterLab's page config, as the lab reads it: the instructor's plugins of nbgrader's lab extension are off
    page = json.loads((student_python.parents[1] / "etc/jupyter/labconfig/page_config.json").read_text("utf-8"))
    plugins = set(re.findall(r'"(@jupyter/nbgrader:[a-z-]+)"', _lab_extension_code(student_python)))
    off = set(page["disabledExtensions"])
    assert off & plugins == {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"}, (off, plugins)
    assert off <= plugins  # every name switched off is a plugin of nbgrader's lab extension: no typo
    assert {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:validate-assignment"} <= plugins - off


def _lab_extension_code(python: Path) -> str:
    """The JavaScript of nbgrader's lab extension in the image (where its plugins' names are defined)."""
    folder = python.parents[1] / "share/jupyter/labextensions/@jupyter/nbgrader/static"
    return "".join(path.read_text("utf-8", errors="replace") for path in folder.glob("*.js"))


def test_a_students_nbgrader_knows_the_course_the_exchange_and_who_they_are(student_python: Path, tmp_path: Path):
    probe = (
        "from nbgrader.apps.listapp import ListApp; app = ListApp(); app.initialize([]); "
        "print(app.coursedir.course_id, app.config.Exchange.root, app.coursedir.student_id)"
    )
    exchange = tmp_path / "exchange"
    done = _run(student_python, "-c", probe, cwd=tmp_path, JUPYTERHUB_USER="ada", BPE_EXCHANGE_ROOT=str(exchange))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["bpe-course", str(exchange), "ada"]
