"""The docs' reference check (scripts/docs_references.py, the hook of ``mkdocs build --strict``) finds what is stale.

Each test gives it a page naming something that exists and something that does not, in a repository of its own
(``tmp_path``), and holds it to naming exactly the missing one.
"""

import doctest
import importlib.util
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("docs_references", ROOT / "scripts" / "docs_references.py")
docs_references = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs_references)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A checkout with one module: ``autograder/cli.py`` defining ``main`` and a class ``Args`` with ``force``."""
    (tmp_path / "autograder").mkdir()
    (tmp_path / "autograder" / "__init__.py").write_text("from .cli import main as run\n__all__ = ['lazy']\n")
    (tmp_path / "autograder" / "cli.py").write_text(
        "import os\nLIMIT = 2\n\ndef main():\n    pass\n\nclass Args:\n    force: bool = False\n"
    )
    return tmp_path


def test_a_path_that_is_gone_is_named_and_one_that_exists_is_not(repository):
    page = "The CLI is `autograder/cli.py`; the sandbox was `autograder/sandbox.py`; see `autograder/`."
    assert docs_references.stale_references(page, repository) == ["`autograder/sandbox.py`: no such file or folder"]


def test_a_file_map_names_the_files_nested_under_a_folder(repository):
    page = (
        "* `autograder/`: the grader\n"
        "    * `cli.py`, `gone.py`: its commands\n"
        "    * `<assignment>.py`: an example, not a path\n"
        "* `cli.py`: not nested under a folder, so not a path of the repository\n"
    )
    assert docs_references.stale_references(page, repository) == ["`autograder/gone.py`: no such file or folder"]


def test_a_module_or_name_that_is_gone_is_named(repository):
    page = (
        "`autograder.cli`, `autograder.cli.main`, `autograder.cli.LIMIT`, `autograder.cli.Args.force`, "
        "`autograder.run`, `autograder.lazy` exist; `autograder.sandbox`, `autograder.cli.gone` and "
        "`autograder.cli.Args.gone` do not."
    )
    assert docs_references.stale_references(page, repository) == [
        "`autograder.sandbox`: no such module or attribute",
        "`autograder.cli.gone`: no such module or attribute",
        "`autograder.cli.Args.gone`: no such module or attribute",
    ]


def test_examples_commands_and_other_projects_are_not_references(repository):
    page = (
        "Notebooks live in `solutions/<assignment>/`; run `python -m autograder grade submitted/`; nbgrader's "
        "`submitted/` folder; `tiktoken._educational.bpe_train`; `autograder/*.py`.\n\n"
        "```bash\ncat autograder/gone.py\n```\n<!-- `autograder/also_gone.py` -->\n"
    )
    assert docs_references.stale_references(page, repository) == []


def test_a_broken_relative_link_is_named_and_other_links_are_not(repository):
    (repository / "docs").mkdir()
    (repository / "docs" / "index.md").write_text("# Home\n")
    text = (
        "[home](docs/index.md) [anchor](docs/index.md#home) [site](https://example.org/x.md) [here](#top) "
        "[gone](docs/gone.md#part)"
    )
    assert docs_references.broken_links(text, repository) == ["link docs/gone.md#part: no such file"]


def test_the_hook_warns_where_mkdocs_strict_counts_warnings(repository, caplog, monkeypatch):
    monkeypatch.setattr(docs_references, "ROOT", repository)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="security/sandbox.md"))
    with caplog.at_level(logging.WARNING, logger="mkdocs"):
        docs_references.on_page_markdown("`autograder/gone.py`", page, None, None)
    assert [r.name for r in caplog.records] == ["mkdocs.hooks.docs_references"]
    assert caplog.records[0].getMessage() == (
        "Doc file 'security/sandbox.md' names `autograder/gone.py`: no such file or folder"
    )


def test_the_docstring_example_holds():
    result = doctest.testmod(docs_references)
    assert result.attempted > 0 and result.failed == 0


def test_a_module_the_file_map_has_no_line_for_is_named(repository):
    (repository / "autograder" / "extra.py").write_text("X = 1\n")
    page = "* `autograder/`: the grader\n    * `cli.py`: its commands\n"
    assert docs_references.unmapped_modules(page, repository) == ["autograder/extra.py"]
    assert docs_references.unmapped_modules(page + "    * `extra.py`: more\n", repository) == []


def test_the_readme_file_map_has_a_line_for_every_module():
    assert docs_references.unmapped_modules((ROOT / "README.md").read_text(encoding="utf-8"), ROOT) == []
