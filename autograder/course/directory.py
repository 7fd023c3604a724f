"""The course directory and nbgrader workspaces.

The repository root is an nbgrader course directory (``nbgrader_config.py``, ``solutions/``, ``notebooks/``).
Every command of :mod:`autograder` grades in a *workspace*: a fresh nbgrader course directory (its own
``gradebook.db``, ``source/``, ``submitted/``, ``autograded/``, ``feedback/``) whose configuration is the
repository's ``nbgrader_config.py`` with the paths pointed at the workspace. So the repository is never
written to while grading, and two runs never share a gradebook.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from .. import cache_dir

CONFIG_FILE = "nbgrader_config.py"


class CourseError(Exception):
    """The course directory or a submission cannot be used; the message says which path and why."""


def find_course_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working directory) that holds ``nbgrader_config.py``
    and ``solutions/``; else the repository this package was installed from (an editable install).

    Raises:
        CourseError: no such folder.
    """
    candidates = []
    here = (start or Path.cwd()).resolve()
    candidates += [here, *here.parents]
    candidates.append(Path(__file__).resolve().parents[2])  # autograder/course/directory.py: the repository
    for folder in candidates:
        if (folder / CONFIG_FILE).is_file() and (folder / "solutions").is_dir():
            return folder
    raise CourseError(f"no course directory (with {CONFIG_FILE} and solutions/) at or above {here}; use --course DIR")


SOURCE_DIRECTORY = "solutions"
"""The source notebooks' folder where a course's configuration does not say (this course's says ``solutions``)."""


def source_folder(root: Path) -> Path:
    """The folder of the course's source notebooks: ``CourseDirectory.source_directory`` of its
    ``nbgrader_config.py`` (relative to ``root``), the one place that names it.

    Example:
        >>> source_folder(Path("/nowhere")).name
        'solutions'
    """
    text = ""
    try:
        text = (root / CONFIG_FILE).read_text(encoding="utf-8")
    except OSError:
        pass
    found = _SOURCE_SETTING.search(text)  # read, not run: the configuration also registers the grading pipeline
    return root / (found.group(2) if found else SOURCE_DIRECTORY)


_SOURCE_SETTING = re.compile(r"^c\.CourseDirectory\.source_directory\s*=\s*([\"'])([^\"'\n]+)\1", re.MULTILINE)


def source_notebook(root: Path, assignment: str) -> Path:
    """The source notebook of ``assignment``: ``<source folder>/<assignment>/<assignment>.ipynb``."""
    return source_folder(root) / assignment / f"{assignment}.ipynb"


def assignments(root: Path) -> list[str]:
    """The assignment ids of the course: the folders of the source folder (:func:`source_folder`) that hold a
    notebook, sorted."""
    source = source_folder(root)
    return sorted(p.name for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def load_config(root: Path) -> Config:
    """The course's ``nbgrader_config.py`` as a traitlets ``Config``."""
    return PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()


@dataclass
class Workspace:
    """An nbgrader course directory configured from the course's config: a scratch one made for one run of a
    command (``scratch=True``: ``source/`` is a copy of ``solutions/``), or the course directory that receives
    grades (``scratch=False``: its own folders and gradebook, as ``nbgrader`` at its root would use them)."""

    course_root: Path
    path: Path
    overrides: dict = field(default_factory=dict)
    gradebook_url: str | None = None
    scratch: bool = True

    @classmethod
    def create(cls, course_root: Path, path: Path, overrides: dict | None = None) -> Workspace:
        """Make ``path`` a fresh workspace: ``source/`` is a copy of the course's ``solutions/``.

        An existing ``path`` is emptied of nbgrader's folders and gradebook first (other files are left).
        """
        path.mkdir(parents=True, exist_ok=True)
        for name in ("source", "release", "submitted", "autograded", "feedback", "gradebook.db"):
            target = path / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        shutil.copytree(source_folder(course_root), path / "source")
        return cls(course_root=course_root, path=path, overrides=dict(overrides or {}))

    @property
    def db_url(self) -> str:
        """The gradebook: ``gradebook_url`` (e.g. PostgreSQL) if given, else the course's configured
        ``CourseDirectory.db_url`` (course directory), else ``gradebook.db`` in the folder."""
        if self.gradebook_url:
            return self.gradebook_url
        if not self.scratch:
            configured = load_config(self.path).CourseDirectory.get("db_url")
            if configured:
                return configured
        return f"sqlite:///{self.path / 'gradebook.db'}"

    def config(self) -> Config:
        if self.scratch:
            config = load_config(self.course_root)
            config.CourseDirectory.source_directory = "source"
            config.CourseDirectory.release_directory = "release"
            config.CourseDirectory.submitted_directory = "submitted"
            config.CourseDirectory.autograded_directory = "autograded"
            config.CourseDirectory.feedback_directory = "feedback"
        else:
            config = load_config(self.path)
        config.CourseDirectory.root = str(self.path)
        config.CourseDirectory.db_url = self.db_url
        config.NbGraderAPI.log_level = "WARN"
        # The grading pipeline (autograder.preprocessors.pipeline) comes from nbgrader_config.py, as for `nbgrader
        # autograde`.
        for key, value in self.overrides.items():  # e.g. {"LimitedKernelManager.memory_limit": 2**30}
            section, name = key.split(".")
            setattr(config[section], name, value)
        return config

    def api(self):
        """An ``nbgrader.apps.NbGraderAPI`` on this workspace."""
        from nbgrader.apps import NbGraderAPI

        logging.getLogger("traitlets").setLevel(logging.ERROR)
        warnings.filterwarnings("ignore", module=r"nbgrader\..*")
        warnings.filterwarnings("ignore", message=r".*not in session.*")
        warnings.filterwarnings("ignore", message=r".*missing an id field.*")
        os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
        config = self.config()
        return NbGraderAPI(config=config)

    def prepare(self, names: list[str]) -> str:
        """Put the source notebooks of ``names`` in the gradebook (``nbgrader generate_assignment``).

        Creating a gradebook costs seconds (nbgrader runs its database migrations), so the prepared gradebook
        is cached under ``$XDG_CACHE_HOME/bpe-course/`` keyed by nbgrader's version, the course config and
        the source files; the next run with the same sources copies it.

        Returns:
            ``""``, or nbgrader's log when an assignment failed to build.
        """
        import nbgrader

        digest = hashlib.sha256(nbgrader.__version__.encode())
        digest.update((self.course_root / CONFIG_FILE).read_bytes())
        for name in sorted(names):
            digest.update(name.encode())
            for path in sorted((source_folder(self.course_root) / name).rglob("*")):
                if path.is_file():
                    digest.update(str(path.relative_to(self.course_root)).encode() + path.read_bytes())
        cached = cache_dir() / f"gradebook-{digest.hexdigest()[:24]}.db"
        target = self.path / "gradebook.db"
        if cached.is_file():
            shutil.copyfile(cached, target)
            return ""
        api = self.api()
        for name in sorted(names):
            result = api.generate_assignment(name, force=True, create=True)
            if not result["success"]:
                return (result.get("log", "") + result.get("error", "")).strip()
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(target, partial)
            os.replace(partial, cached)
        except OSError:  # a read-only cache only costs time
            pass
        return ""

    def folder(self, kind: str) -> Path:
        """One of nbgrader's folders (``"submitted"``, ``"autograded"``, ``"feedback"``...) of this directory."""
        if self.scratch:
            return self.path / kind
        name = load_config(self.path).CourseDirectory.get(f"{kind}_directory", kind)
        return self.path / name

    def submission_path(self, student: str, assignment: str) -> Path:
        return self.folder("submitted") / student / assignment / f"{assignment}.ipynb"

    def autograded_path(self, student: str, assignment: str) -> Path:
        return self.folder("autograded") / student / assignment / f"{assignment}.ipynb"

    def feedback_path(self, student: str, assignment: str) -> Path:
        return self.folder("feedback") / student / assignment / f"{assignment}.html"


COURSE_CONFIG_TEMPLATE = '''"""An nbgrader course directory of bpe-course, made by `python -m autograder`.

The course's configuration (and its grading pipeline) comes from {config!r}; the source notebooks from its
solutions/ folder."""

c = get_config()  # noqa: F821
load_subconfig({config!r})  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = {source!r}
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.db_url = {db_url!r}
'''


def make_course_directory(course_root: Path, path: Path, gradebook_url: str | None = None) -> Workspace:
    """Make ``path`` an nbgrader course directory of this course (for ``demo`` and tests): an
    ``nbgrader_config.py`` that loads the course's and points at its ``solutions/``, so ``nbgrader`` and the
    formgrader run there as at the course root. An existing directory keeps its grades.

    Example:
        >>> make_course_directory(Path("."), Path("out/demo/course")).db_url  # doctest: +SKIP
        'sqlite:///.../out/demo/course/gradebook.db'
    """
    path = path.resolve()
    path.mkdir(parents=True, exist_ok=True)
    text = COURSE_CONFIG_TEMPLATE.format(
        config=str((course_root / CONFIG_FILE).resolve()),
        root=str(path),
        source=str(source_folder(course_root).resolve()),
        db_url=gradebook_url or f"sqlite:///{path / 'gradebook.db'}",
    )
    config_file = path / CONFIG_FILE
    if not config_file.exists() or config_file.read_text(encoding="utf-8") != text:
        config_file.write_text(text, encoding="utf-8")
    return Workspace(course_root, path, gradebook_url=gradebook_url, scratch=False)
