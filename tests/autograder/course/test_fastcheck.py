"""``check``'s engine (autograder.course.fastcheck): the scores of ``grade``, without nbgrader's batch machinery.

The sample class's expected scores are the ones the demo test (tests/autograder/test_cli.py) holds ``grade`` to,
through nbgrader; here every sample notebook is checked the fast way and must get exactly those scores.
"""

from collections import defaultdict
from pathlib import Path

import nbformat
import pytest

from autograder.course import fastcheck, sample_class, submissions
from bpe_lab.harness import forget_timeouts

from ..expected_scores import EXPECTED

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sample")
    sample_class.build(ROOT, folder)
    return submissions.find_submissions(folder, ROOT)


@pytest.mark.needs("sandbox")  # check_notebook grades for marks with the course's config: the sandbox required
def test_every_sample_notebook_gets_the_scores_grade_gives(sample):
    got: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for submission in sample:
        result = fastcheck.check_notebook(ROOT, submission)
        assert not result.error, result.error
        per: dict[str, float] = defaultdict(float)
        for cell in result.cells:
            per[cell.exercise] += cell.points
        got[submission.assignment][submission.student] = dict(per)
    expected = {a: {s: {f: float(p) for f, p in fs.items()} for s, fs in ss.items()} for a, ss in EXPECTED.items()}
    assert dict(got) == expected


@pytest.mark.needs("sandbox")
def test_a_notebook_that_loops_forever_costs_seconds_and_names_the_input(tmp_path):
    assignment = "01_pair_counts_and_merge"
    release = nbformat.read(ROOT / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    answers = {
        "get_pair_counts": "def get_pair_counts(ids):\n    return {}\n",
        "merge": "def merge(ids, pair, new_id):\n    while True:\n        pass\n",
    }
    path = tmp_path / f"{assignment}.ipynb"
    nbformat.write(sample_class.fill(release, answers), path)
    forget_timeouts()
    result = fastcheck.check_notebook(ROOT, submissions.Submission("you", assignment, path))
    merge_cells = [c for c in result.cells if c.exercise == "merge"]
    assert [c.points for c in merge_cells] == [0.0, 0.0]
    first, second = (c.message.splitlines() for c in merge_cells)
    assert first == [
        "ExampleFailed: merge([1, 2, 3, 1, 2], (1, 2), 99)",
        "  expected: [99, 3, 99]",
        "  returned: nothing: it used more than 2 s of CPU time (an endless loop?)",
    ]
    # the second cell does not call merge again: it names the first timeout's input at once
    assert second[0] == "ExampleFailed: merge([1, 2, 3, 1, 2], (1, 2), 99)"
    assert "not called again" in second[2]


def test_a_function_that_ran_out_of_time_in_a_test_cell_fails_at_once_in_the_cells_after_it():
    """grade and check: the notebook's own cells (a demo calling merge) do not loop a second time."""
    from autograder.isolation.judge import RemoteFunction, Session, worker_command
    from bpe_lab.harness import call

    forget_timeouts()
    with Session(worker_command(2**30, 60, None), cell_timeout=60) as session:
        assert session.run("merge", "def merge(ids, pair, new_id):\n    while True:\n        pass\n") == ""
        outcome = call(RemoteFunction(session, "merge"), ([1, 2], (1, 2), 3), 0.2, name="merge", expected=[3])
        assert outcome.timed_out
        error = session.run("demo", "ids = merge([1, 2, 3], (1, 2), 9)")
    assert error == "TimeoutError: merge ran out of time in a test cell above, so it is not run again"
    forget_timeouts()


def test_the_notebooks_check_cells_do_nothing_where_grading_runs_the_learners_code():
    """The worker lets ``from bpe_lab.selfcheck import check`` in and nothing else of the course."""
    from autograder.isolation.judge import Session, worker_command

    with Session(worker_command(2**30, 60, None), cell_timeout=60) as session:
        assert session.run("check_merge", 'from bpe_lab.selfcheck import check\n\ncheck("merge")') == ""
        blocked = session.run("sneaky", "import autograder.checks")
        also = session.run("sneakier", "from bpe_lab.selfcheck import expect")
    assert blocked.startswith("ModuleNotFoundError: autograder")
    assert blocked.endswith("is not available while grading")
    assert also.startswith("ImportError: cannot import name 'expect'")
