"""A virtual environment holding only the learner's install: ``bpe_lab`` and the dependencies of its distribution.

Made without a network, as ``pip install ./learner`` (or ``pip install './learner[student]'``) would make it: the
learner's wheel is built from ``learner/`` and unpacked into a fresh venv, and the dependencies its metadata
declares (``Requires-Dist``: the closure of ``bpe_lab/data/requirements.txt``, which ``learner/pyproject.toml``
reads, plus those of the extras asked for) are linked in from this interpreter's site-packages, distribution by
distribution, from their own file lists. A distribution's files outside site-packages (``share/jupyter`` and
``etc/jupyter``: JupyterLab's assets, the lab extensions, the server extensions' switches) are put at the same place
under the venv's prefix, copied (a tool that edits the configuration must never edit this interpreter's, and
Jupyter serves no file whose real path lies outside its folders). Nothing else of this machine's packages is
visible there: not ``bpe_ref``, not ``autograder``, not ``tiktoken``, and nbgrader only with the ``student`` extra.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

from autograder.isolation import learner_install

COURSE = Path(__file__).resolve().parents[2]
LEARNER = COURSE / "learner"


def declared(site: Path, extras: tuple[str, ...] = ()) -> list[str]:
    """The requirements of the unpacked learner's wheel in ``site`` that apply with ``extras`` (markers evaluated)."""
    (info,) = site.glob("bpe_lab-*.dist-info")
    wanted = []
    for text in importlib.metadata.Distribution.at(info).requires or []:
        req = Requirement(text)
        if req.marker is None or any(req.marker.evaluate({"extra": extra}) for extra in ("", *extras)):
            req.marker = None
            wanted.append(str(req))
    return wanted


def _data_files(dist: importlib.metadata.Distribution, prefix: Path) -> None:
    """Put ``dist``'s files under ``share/`` and ``etc/`` of its installation prefix at the same place in ``prefix``."""
    site = Path(os.path.realpath(str(dist.locate_file(""))))
    home = site.parents[2] if site.parent.name.startswith("python") else site.parent  # <prefix>/lib/pythonX.Y/site-…
    for file in dist.files or []:
        path = Path(os.path.normpath(site / str(file)))
        try:
            relative = path.relative_to(home)
        except ValueError:
            continue
        if relative.parts[0] not in ("share", "etc") or not path.is_file():
            continue
        target = prefix / relative
        if target.exists() or target.is_symlink():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)  # not a link: Jupyter serves no file whose real path is outside its folders


def build(dest: Path, extras: tuple[str, ...] = (), also: tuple[str, ...] = ()) -> Path:
    """Make the environment in ``dest`` and return its Python.

    Args:
        dest: a folder that does not exist yet.
        extras: extras of the learner's distribution to install too, e.g. ``("student",)``.
        also: requirements that are not the learner's but the image's base (``"jupyterhub"`` for a hub's single-user
            server), linked in the same way.

    Raises:
        RuntimeError: building the learner's wheel failed.
        LookupError: a dependency is not installed here (named).
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True)
    python = dest / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    wheels = dest / "wheels"
    errors = []
    for isolation in ([], ["--no-build-isolation"]):  # with network, a clean build; offline, this setuptools
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w", str(wheels), str(LEARNER)],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            break
        errors.append(done.stderr[-1500:])
    else:
        raise RuntimeError("building the learner's wheel failed:\n" + "\n".join(errors))
    (wheel,) = wheels.glob("bpe_lab-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    wanted = [*declared(site, extras), *learner_install.KERNEL_RUNTIME, *also]
    linked = dest / "linked"
    linked.mkdir()
    for dist in learner_install.dependency_closure(wanted, "the learner's wheel").values():
        for entry in map(Path, learner_install.site_entries(dist)):
            if entry.parent.name != "__pycache__" and not (linked / entry.name).exists():
                (linked / entry.name).symlink_to(entry)
        if extras or also:  # a JupyterLab to serve, not only a kernel: its assets and extensions' switches too
            _data_files(dist, dest)
    # a site dir of its own, so that the linked .pth files are read as in site-packages
    (site / "_learner_deps.pth").write_text(f"import site; site.addsitedir({str(linked)!r})\n", encoding="utf-8")
    for share in ("share/jupyter",):  # the kernel spec of this venv, so notebooks run on its Python
        os.makedirs(dest / share, exist_ok=True)
    subprocess.run(
        [str(python), "-m", "ipykernel", "install", "--sys-prefix", "--name", "bpe-learner"],
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    return python


def runs_the_learners_own(cell: Any) -> bool:
    """A chart of 06 (:mod:`bpe_lab.charts.scale`) times and runs the learner's own functions and draws no trace of
    the course's: on the stubs it names the exercises it waits for instead of drawing."""
    return "from bpe_lab.charts import" in cell.source and any(
        name in cell.source for name in ("time_per_merge", "compression")
    )
