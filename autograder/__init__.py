"""autograder: hidden checks against bpe_ref, self-check, batch grading through nbgrader, feedback and grades.

The checks are imported on first use (``from autograder import check_merge`` works as before), so that the
notebooks' learner-facing helpers (:mod:`bpe_lab.selfcheck`) import without the reference answers.

The rooms, as nbgrader shows its own architecture in its folders:

* :mod:`autograder.checks` -- the hidden checks, their specs and cases, one module per assignment; pure functions.
* :mod:`autograder.isolation` -- what student code sees and may spend: sandbox, limits, kernel, the judge's worker.
* :mod:`autograder.preprocessors` -- the nbgrader steps, one class per file, and the pipeline that orders them.
* :mod:`autograder.course` -- the course directory, a class's submissions, grading, gradebook, pool, release.
* :mod:`autograder.reports` -- the class report and the LMS exports; they only read results.
* :mod:`autograder.doctor` -- a module, not a room: the pure notebook logic (read, repair, scan, note) that the
  steps, the class pipeline, the report and the judge all use on a submission; in any one room it would make the
  others import that room.
* :mod:`autograder.inert` -- a module like the doctor: what a submission put in a page, a terminal or a CSV made
  inert (HTML, markdown, notebooks, control characters, formulas); every room may use it, it imports none.
* :mod:`autograder.formgrader_csp` -- a module: the formgrader's Content-Security-Policy (a tornado transform the
  pipeline installs); of the package it imports only :mod:`autograder.inert` (the style that wraps outputs).
* :mod:`autograder.cli` -- ``python -m autograder``: parsing and calling only.

Dependency rules (every import counts, at the top of a module or inside a function; held by
``tests/autograder/test_layers.py``). A row may import the columns marked ``x`` and its own room; nothing else of
:mod:`autograder`:

==============  ======  =====  ==============  ======  =========  ======  =============  =======
imports ->      checks  inert  formgrader_csp  doctor  isolation  course  preprocessors  reports
==============  ======  =====  ==============  ======  =========  ======  =============  =======
checks          .       .      .               .       .          .       .              .
inert           .       .      .               .       .          .       .              .
formgrader_csp  .       x      .               .       .          .       .              .
doctor          .       x      .               .       .          .       .              .
isolation       .       x      .               x       .          .       .              .
course          x       x      .               x       x          .       .              .
preprocessors   x       x      x               x       x          x       .              .
reports         x       x      .               x       .          x       .              .
cli             x       x      .               x       x          x       x              x
==============  ======  =====  ==============  ======  =========  ======  =============  =======

Besides: nothing imports :mod:`autograder.cli` but ``__main__``; any module may ``import autograder`` itself (this
package, which imports only :mod:`autograder.checks`); there is no cycle between rooms; and :mod:`autograder.reports`
never reaches :mod:`autograder.isolation`, not even through a module it imports (a report needs no sandbox). The
checks import nothing that starts a process, so a check runs the same in the grader, in a learner's self-check and
in a test.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bpe_lab.startup import defer_iri_syntax

defer_iri_syntax()  # before anything imports nbformat: 2 s of CPU saved in every process of the grader

__all__ = [
    "CheckFailed",
    "check_apply_bpe",
    "check_best_pair",
    "check_bpe_train",
    "check_count_pairs",
    "check_counterexample",
    "check_encode",
    "check_get_pair_counts",
    "check_learn_bpe",
    "check_merge",
    "check_merge_vocab",
    "check_train_bpe",
]


def cache_dir() -> Path:
    """The course's cache folder, an absolute path: ``$BPE_COURSE_CACHE``, else ``$XDG_CACHE_HOME/bpe-course`` (a
    relative ``XDG_CACHE_HOME`` is ignored, as the XDG specification says), else ``~/.cache/bpe-course``. It holds
    the prepared gradebooks (:mod:`autograder.course.directory`) and the sandbox's views of the installed packages
    (:func:`autograder.isolation.sandbox.site_view`): here, in the package itself, because every room may use it.

    Example:
        >>> cache_dir().is_absolute()
        True
    """
    if os.environ.get("BPE_COURSE_CACHE"):
        return Path(os.path.abspath(os.environ["BPE_COURSE_CACHE"]))
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = str(Path.home() / ".cache")
    return Path(base) / "bpe-course"


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import checks

        return getattr(checks, name)
    raise AttributeError(f"module 'autograder' has no attribute {name!r}")
