"""``check``'s engine: score one notebook as ``grade`` would, without nbgrader's batch machinery.

``grade`` builds an nbgrader course (a gradebook made from the source notebooks, ``autograde`` with its
converters, the database) so that a whole class is graded, recorded and given feedback. A learner's self-check
needs none of that; it needs the score and the messages. Here the submission is repaired as for ``grade``
(:func:`autograder.doctor.examine`), its locked cells are put back as the source notebook has them (what
nbgrader's ``OverwriteCells`` does), and the test cells are judged as ``grade``'s
:class:`autograder.preprocessors.judge_tests.JudgeTests` judges them: the student's code in the same sandboxed worker,
the hidden tests from the source notebook, the same checks. A test cell scores its points when it ends without an error
(nbgrader's rule for code cells), so the scores are ``grade``'s.

What differs, on purpose: time. ``check`` gives a submission's cells seconds of CPU time where ``grade`` gives
minutes (:data:`CHECK_TIMEOUTS`): an endless loop costs the learner a few seconds, not the course's cell timeout.
Like ``grade``'s, its limits count CPU time, so a busy machine does not change a score; the wall clock is only a
backstop against code that sleeps.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from bpe_lab import cells as nbcells

from .. import doctor
from ..isolation.judge import judge_cells, kernel_limits, worker_session
from . import grading, submissions
from .directory import load_config, source_notebook

CHECK_TIMEOUTS = {
    "call_timeout": 3.0,
    "cell_timeout": 3.0,
    "notebook_timeout": 60.0,
    "call_wall_timeout": 30.0,
    "cell_wall_timeout": 30.0,
    "notebook_wall_timeout": 180.0,
}
"""Limits for ``check`` (:data:`autograder.isolation.judge.TIMEOUTS`): CPU seconds per call in a test cell's own
lines, per cell of the submission and for the whole notebook; then the wall clock's backstops for each."""


def check_notebook(
    course_root: Path,
    submission: submissions.Submission,
    *,
    overrides: dict | None = None,
    timeouts: dict[str, float] | None = None,
) -> grading.Result:
    """Score ``submission`` as ``grade`` would; the result has its cells, messages and solution errors.

    Args:
        course_root: the course directory.
        submission: the notebook and its assignment.
        overrides: nbgrader config overrides (``LimitedKernelManager.*``, ``JudgeTests.*``).
        timeouts: any of :data:`CHECK_TIMEOUTS`, in seconds (by default those; a ``JudgeTests.cell_timeout``
            override sets the cell's CPU seconds).

    Returns:
        A :class:`autograder.course.grading.Result`; ``error`` is set when the notebook cannot be read.

    Example:
        >>> you = submissions.Submission("you", "01_pair_counts_and_merge", Path("mine.ipynb"))
        >>> check_notebook(Path("."), you).score  # the course root; a sandboxed run of seconds  # doctest: +SKIP
        8.0
    """
    overrides = dict(overrides or {})
    timeouts = {**CHECK_TIMEOUTS, **(timeouts or {})}
    if "JudgeTests.cell_timeout" in overrides:
        timeouts["cell_timeout"] = float(overrides["JudgeTests.cell_timeout"])
    source_path = source_notebook(course_root, submission.assignment)
    result = grading.Result(submission, possible=grading.max_points(course_root, submission.assignment))
    nb, problems = doctor.examine(submission.path, source_path, f"{submission.assignment}.ipynb")
    result.problems = [str(p) for p in problems]
    if nb is None:
        result.error = "; ".join(p.text for p in problems if p.kind == "fatal")
        return result
    source = {nbcells.grade_id(c): c for c in nbformat.read(source_path, 4).cells if nbcells.meta(c)}
    tests = {grade_id: cell.source for grade_id, cell in source.items() if nbcells.is_test(cell)}
    for cell in nb.cells:  # nbgrader's OverwriteCells: locked and test cells as the source notebook has them
        original = source.get(nbcells.grade_id(cell))
        if original is not None and (nbcells.is_locked(original) or nbcells.is_graded(original)):
            if not nbcells.is_solution(original):
                cell.source, cell.cell_type = original.source, original.cell_type
    limits = kernel_limits(load_config(course_root), overrides)
    with worker_session(limits, folder=str(submission.path.parent), **timeouts) as session:
        outputs = judge_cells(nb.cells, tests, session)
    exercise_of = grading.exercises(course_root, submission.assignment)
    for index, cell in enumerate(nb.cells):
        cell.outputs = outputs.get(index, []) if cell.get("cell_type") == "code" else []
        grade_id = nbcells.grade_id(cell)
        if grade_id in tests:
            points = nbcells.points(source[grade_id])
            failed = any(  # nbgrader's determine_grade: an error or anything on stderr scores nothing
                o.get("output_type") == "error" or (o.get("output_type") == "stream" and o.get("name") == "stderr")
                for o in cell.outputs
            )
            result.cells.append(
                grading.CellResult(
                    grade_id,
                    0.0 if failed else points,
                    points,
                    nbcells.error_message(cell),
                    exercise_of.get(grade_id, grade_id),
                    nbcells.where_lines(cell),
                )
            )
        elif nbcells.is_solution(cell) and cell.get("cell_type") == "code":
            message = nbcells.error_message(cell)
            if message and not message.startswith("NotImplementedError"):
                result.solution_errors.append(f"{grade_id}: {message.splitlines()[0][:200]}")
    return result
