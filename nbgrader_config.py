"""nbgrader configuration of the bpe-course course directory (the repository root).

`python -m autograder` reads this file for every command, and so do `nbgrader autograde` and the formgrader:
the course's grading pipeline (autograder.preprocessors.pipeline: the doctor, the limited kernel, the judge) is
registered in nbgrader's own Autograde converter here, so every way of grading runs the same steps and gives the same
scores.
"""

from pathlib import Path

c = get_config()  # noqa: F821 - provided by nbgrader's config loader

# ---- Your course's settings: the ones to decide before a class is graded (`python -m autograder doctor` checks them).
# The course id: the students' image says the same (deploy/student-image/nbgrader_config.py, BPE_COURSE_ID).
c.CourseDirectory.course_id = "bpe-course"
# The exchange: the folder through which assignments, submissions and feedback travel, shared by your server and every
# student's (nbgrader's default; the students' image says the same, BPE_EXCHANGE_ROOT).
c.Exchange.root = "/srv/nbgrader/exchange"
# What a late submission costs: "none" (nbgrader's default: recorded as late, nothing taken off), "zero" (0 points),
# or your own plugin (nbgrader's LateSubmissionPlugin). Lateness needs due dates, below.
c.LateSubmissionPlugin.penalty_method = "none"
# Due dates, per assignment: `python -m autograder assignments` writes them to the gradebook (a date without a zone
# is UTC), e.g. {"01_pair_counts_and_merge": "2027-01-15 17:00:00 Europe/Berlin"}.
c.CourseSchedule.due_dates = {}
# The gradebook: gradebook.db at the course root unless you set a URL (a shared PostgreSQL for a cluster).
# c.CourseDirectory.db_url = "postgresql://grader:secret@dbhost/bpe"
# ---- The course's own layout and grading (no need to change).

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"

# Time limits on student code count the CPU time it spends (its processes and threads together: the cgroup's
# accounting, else the process tree), so that a busy grading machine (`grade --jobs N` on a shared server) never
# costs a correct submission a point and a regrade gives the same grades. An endless loop costs its CPU limit,
# about the same time on a quiet machine. Each limit has a wall clock too, a generous backstop against code that
# sleeps or waits; only a CPU-time timeout makes a function "not called again". The hidden checks stop every call
# of a learner's function after 2 s of CPU time (60 s of wall time), so a slow or endless function costs 2 s, not
# the whole cell.
c.LimitedExecute.cell_timeout = 120  # CPU seconds per cell in the grading kernel
c.Execute.timeout = 600  # wall seconds per cell (the backstop)
c.Execute.interrupt_on_timeout = True

# A test cell that a learner deleted is put back from the source notebook, and graded.
c.OverwriteCells.add_missing_cells = True

# nbgrader gives 0 points to a test cell with any output on stderr. Warnings are not errors: drop stderr
# output made only of Python warnings (`file.py:3: DeprecationWarning: ...` and its source line).
c.IgnorePattern.enabled = True
# Each line is matched once and never revisited (atomic groups, possessive repeats): the time is linear in the
# output's length, whatever a student prints (a nested plain repeat here would take exponential time).
c.IgnorePattern.pattern = r"\A(?:(?>[^\n]*?:\d+: \w*Warning: [^\n]*+\n?)(?>  [^\n]*+\n?)?)++\Z"

# Student stubs: the release notebooks say what to do in place of the solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Keep feedback readable when a learner prints a lot.
c.LimitOutput.max_lines = 200

# Limits on the grading kernel (autograder.isolation.limits; `python -m autograder grade` uses them, and its
# --memory-limit / --cpu-limit / --output-limit options override them).
c.LimitedKernelManager.memory_limit = 2 * 1024**3  # bytes of address space
c.LimitedKernelManager.cpu_limit = 600  # RLIMIT_CPU of each process of the kernel: the hard floor under the limits
c.LimitedExecute.max_output_bytes = 1_000_000  # per cell
# Student code runs in a bubblewrap sandbox (an allowlist: Python, the learner's install, its own files;
# autograder.isolation.sandbox). "required" refuses to grade without it; "off" (say it only when the grader is isolated
# some other way) turns it off; `check` and `demo` use "auto". See docs/security/sandbox.md.
c.LimitedKernelManager.sandbox = "required"
c.LimitedKernelManager.process_limit = 256  # processes and threads of one submission together
# Of the installed packages, student code imports only the learner's install (bpe_lab's requirements and their
# dependencies: autograder.isolation.learner_install). What your students' image adds, list here, e.g. ["pandas"].
c.LimitedKernelManager.extra_distributions = []
# All the cells of one notebook get this much together (a `time.sleep` in every cell costs the wall clock once).
c.LimitedExecute.notebook_timeout = 600  # CPU seconds
c.LimitedExecute.notebook_wall_timeout = 1800  # wall seconds (the backstop)

# Test cells are scored outside the kernel (autograder.isolation.judge): the student's code runs in a worker process
# under the limits and sandbox above, and each test cell runs in the grader, calling the student's functions
# in the worker and getting plain data back. Code in a submission cannot reach the checks or their answers.
# Its limits count the worker's CPU time, as the kernel's do; the wall clocks are the backstops.
c.JudgeTests.call_timeout = 10  # CPU seconds per call in a test cell's own asserts (hidden checks: 2 s)
c.JudgeTests.call_wall_timeout = 60
c.JudgeTests.cell_timeout = 120  # CPU seconds per cell of the submission
c.JudgeTests.cell_wall_timeout = 600
c.JudgeTests.notebook_timeout = 600  # CPU seconds for all of it
c.JudgeTests.notebook_wall_timeout = 1800

# The pipeline itself (order and reasons: autograder/preprocessors/pipeline.py). Fail closed: where the course's grader
# is not installed, autograding stops with this message instead of falling back to nbgrader's in-kernel test cells.
try:
    from autograder.course.formgrader import quiet_log
    from autograder.preprocessors.pipeline import configure
except ImportError as exc:  # a learner's environment: nothing here grades for marks
    _missing = (
        f"bpe-course: the course's grader is not installed here ({exc}); "
        "install it: pip install -e ./learner -e '.[dev]'"
    )

    def _refuse(nb, resources):
        raise RuntimeError(_missing)

    c.Autograde.sanitize_preprocessors = [_refuse]
    c.Autograde.autograde_preprocessors = [_refuse]
else:
    configure(c, Path(__file__).resolve().parent)
    quiet_log()  # in the formgrader: its success boxes show what the server logs, not every DEBUG line
