"""A virtual environment holding only the learner's install: ``bpe_lab`` and the dependencies of its distribution.

Made without a network: the learner's wheel is built from ``learner/`` and unpacked into a fresh venv, and the
dependencies (:func:`autograder.isolation.learner_install.distributions`: the closure of
``bpe_lab/data/requirements.txt``, which ``learner/pyproject.toml`` reads) are linked in from this interpreter's
site-packages, distribution by distribution, from their own file lists. Nothing else of this machine's packages is
visible there: not ``bpe_ref``, not ``autograder``, not ``tiktoken``, not nbgrader.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from autograder.isolation import learner_install

COURSE = Path(__file__).resolve().parents[2]
LEARNER = COURSE / "learner"


def build(dest: Path) -> Path:
    """Make the environment in ``dest`` and return its Python.

    Raises:
        RuntimeError: a dependency is not installed here, or building the learner's wheel failed.
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
    linked = dest / "linked"
    linked.mkdir()
    for dist in learner_install.distributions().values():
        for entry in map(Path, learner_install.site_entries(dist)):
            if entry.parent.name != "__pycache__" and not (linked / entry.name).exists():
                (linked / entry.name).symlink_to(entry)
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
