"""The two distributions of the checkout: the course's (``pyproject.toml``) depends on the learner's toolkit
(``learner/pyproject.toml``, ``bpe-lab``) instead of shipping ``bpe_lab`` a second time, and the README's set-up
installs both, as CI does."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from setuptools import find_packages

from autograder.isolation import sandbox

ROOT = Path(__file__).resolve().parents[1]


def _project(path: Path) -> dict:
    return tomllib.loads(path.read_text("utf-8"))


def test_the_course_ships_no_copy_of_the_learners_toolkit() -> None:
    config = _project(ROOT / "pyproject.toml")
    packages = find_packages(str(ROOT), include=config["tool"]["setuptools"]["packages"]["find"]["include"])
    assert "autograder" in packages and "bpe_ref" in packages
    assert not [name for name in packages if name.split(".")[0] in ("bpe_lab", "bpe_lab_solutions")], packages
    assert "bpe_lab" not in config["tool"]["setuptools"].get("package-data", {})
    assert "bpe-lab" not in config["project"]["scripts"]  # the toolkit's own distribution installs its command


def test_the_course_depends_on_exactly_the_learners_toolkit_of_the_checkout() -> None:
    learner = _project(ROOT / "learner" / "pyproject.toml")["project"]
    course = _project(ROOT / "pyproject.toml")["project"]
    pinned = [Requirement(text) for text in course["dependencies"] if Requirement(text).name == learner["name"]]
    assert [str(req.specifier) for req in pinned] == [f"=={learner['version']}"]
    learner_packages = find_packages(str(ROOT / "learner"), include=["bpe_lab", "bpe_lab.*"])
    assert "bpe_lab" in learner_packages and "bpe_lab.charts" in learner_packages


def test_the_readme_set_up_ci_and_the_sandbox_message_give_the_same_command() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    setup = re.search(r"^(pip install .*?)\s+# set-up", readme, re.MULTILINE)
    assert setup is not None and setup.group(1) == sandbox.SETUP
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert f"python3 -m {sandbox.SETUP.replace('pip install', 'pip install --quiet')}" in ci
    assert sandbox.SETUP in sandbox.HOW_TO_GET
