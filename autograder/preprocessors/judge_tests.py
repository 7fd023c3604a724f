"""nbgrader's step that scores the test cells: :class:`JudgeTests`, the judge (:mod:`autograder.isolation.judge`) in
``autograde``.

It reads the test cells from the gradebook (the instructor's version, never the submission's), seeds the hidden
checks from the course's secret and the student's id, and hands the cells to
:func:`~autograder.isolation.judge.judge_cells`; it writes each test cell's outputs, from which nbgrader's
``SaveAutoGrades`` takes the score. How the student's code is run apart from the grader is
:mod:`autograder.isolation.judge`'s, not this module's.
"""

from __future__ import annotations

import contextlib
from typing import Any

from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Float, List, Unicode

from bpe_lab import cells as cells_

from ..checks import cases
from ..course.directory import find_course_root
from ..doctor import writable
from ..isolation.judge import TIMEOUTS, judge_cells, kernel_limits, worker_session


class JudgeTests(NbGraderPreprocessor):
    """nbgrader preprocessor: score every test cell with :func:`judge_cells` (see the module's docstring).

    Test cells and their sources come from the gradebook (the instructor's version), not from the
    submission. The worker gets the grading kernel's limits and sandbox mode (``LimitedKernelManager``'s
    ``memory_limit``, ``cpu_limit``, ``process_limit`` and ``sandbox``: without bubblewrap, ``required`` refuses to
    run it), in a cgroup of its own where the machine allows it, and it cannot import the course's packages. The
    hidden checks draw their generated inputs from a seed private to the course and the student
    (:func:`autograder.checks.cases.student_seed`). When the kernel did not run the notebook (``LimitedExecute.enabled =
    False``, as in ``check``), the other cells get the worker's errors as their outputs.
    """

    enabled = Bool(True, help="judge test cells outside the kernel").tag(config=True)
    call_timeout = Float(
        10.0, help="CPU seconds per call of a student function in a test cell's own lines (hidden checks: 2 s)"
    ).tag(config=True)
    cell_timeout = Float(120.0, help="CPU seconds per cell of the submission").tag(config=True)
    notebook_timeout = Float(600.0, help="CPU seconds for all of a notebook's cells and tests").tag(config=True)
    call_wall_timeout = Float(60.0, help="wall seconds per call (a backstop against sleeping code)").tag(config=True)
    cell_wall_timeout = Float(600.0, help="wall seconds per cell (a backstop)").tag(config=True)
    notebook_wall_timeout = Float(1800.0, help="wall seconds for the whole notebook (a backstop)").tag(config=True)
    secret_file = Unicode(
        "", help="the course's secret for the hidden checks' inputs (default: .course_secret in the course folder)"
    ).tag(config=True)
    seed = Unicode(
        "student",
        help="the hidden checks' inputs: 'student' (from the course secret and the student id: grading for marks) or "
        "'public' (the public seed: the bundled sample class, whose scores are documented)",
    ).tag(config=True)
    worker_hidden_paths = List(Unicode(), [], help="ignored: the sandbox is an allowlist (kept for old configs)").tag(
        config=True
    )

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        if not self.enabled:
            return nb, resources
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            graded = {cell.name for cell in notebook.grade_cells}
            tests = {c.name: c.source for c in notebook.source_cells if c.name in graded and c.cell_type == "code"}
            tests = {name: source for name, source in tests.items() if name not in _solution_ids(notebook)}
        if self.seed not in ("student", "public"):
            raise ValueError(f"JudgeTests.seed must be 'student' or 'public', not {self.seed!r}")
        secret = cases.course_secret(self._secret_file()) if self.seed == "student" else None
        if secret is None and not getattr(self, "_warned_public", False):
            self._warned_public = True  # once per process: the learner's toolkit ships these inputs' answers
            self.log.warning(
                "JudgeTests.seed is 'public': the hidden checks use the inputs whose expected answers bpe_lab ships "
                "to learners, so a table of those answers scores full marks. Grade for marks with seed 'student'."
            )
        timeouts = {name: getattr(self, name) for name in TIMEOUTS}
        folder = (resources.get("metadata") or {}).get("path") or None
        with worker_session(self._kernel_limits(), folder=folder, **timeouts) as session:
            seeded = cases.student_seed(secret, str(info.get("student", ""))) if secret else contextlib.nullcontext()
            with seeded:
                judged = judge_cells(nb.cells, tests, session)
            for index, outputs in judged.items():
                cell = nb.cells[index]
                ran_in_kernel = cell.get("execution_count") is not None or cell.outputs
                if cells_.grade_id(cell) in tests or not ran_in_kernel:
                    cell.outputs = outputs  # other cells keep the kernel's outputs, when it ran them
                elif _instructors(cell):
                    pass  # a locked cell of the course (a chart): what it does for grading is not the student's
                elif outputs and not any(o.get("output_type") == "error" for o in cell.outputs):
                    # fine in the kernel, not where it is graded (a module the worker cannot import...): say so
                    for output in outputs:
                        output.evalue = f"{output.evalue} (when this cell ran again for grading)"
                    cell.outputs.extend(outputs)
        for cell in nb.cells:  # the kernel's outputs and the worker's messages, as the notebook will be written
            if cell.get("cell_type") == "code":
                writable(cell.outputs)
        return nb, resources

    def _secret_file(self) -> str:
        """``secret_file``, else ``.course_secret`` in the course folder
        (:func:`~autograder.course.directory.find_course_root`)."""
        return self.secret_file or str(find_course_root() / cases.SECRET_FILE)

    def _kernel_limits(self) -> dict[str, Any]:
        """The grading kernel's ``memory_limit``, ``cpu_limit``, ``process_limit`` and ``sandbox`` (its config)."""
        return kernel_limits(self.config)


def _instructors(cell: NotebookNode) -> bool:
    """A locked cell of the course that is neither a solution nor a test (a chart, a demo)."""
    return cells_.is_locked(cell) and not cells_.is_solution(cell) and not cells_.is_graded(cell)


def _solution_ids(notebook: Any) -> set[str]:
    return {cell.name for cell in notebook.solution_cells}
