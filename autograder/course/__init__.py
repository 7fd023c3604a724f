"""The course and its class: the course directory, a class's submissions, grading them, the gradebook, the release.

Why a package of its own: this is the class's side of grading, where nbgrader is driven as a library (workspaces,
``NbGraderAPI.autograde``, the gradebook API), submissions are found and staged, and results are published where
nbgrader's tools look. It uses isolation only through ``check``'s engine and leaves the steps of a notebook's grading
to :mod:`autograder.preprocessors`, which nbgrader loads from ``nbgrader_config.py``: nothing here imports them
(``tests/autograder/test_layers.py``).

* :mod:`~autograder.course.directory` -- the course directory, its config and scratch workspaces, where a course
  folder is; it grades nothing.
* :mod:`~autograder.course.submissions` -- a class folder read into submissions, student ids made safe, staging for
  nbgrader; it grades nothing.
* :mod:`~autograder.course.grading` -- ``grade``: a class autograded through nbgrader in parallel workers, results
  published, grade files written; it holds no nbgrader step.
* :mod:`~autograder.course.gradebook` -- graded submissions upserted into the course's nbgrader gradebook, manual
  grades kept; it runs no student code.
* :mod:`~autograder.course.pool` -- a worker pool where a dead worker costs only what it was grading; it knows
  nothing of notebooks.
* :mod:`~autograder.course.release` -- ``release``: ``notebooks/`` generated from ``solutions/``, and the toolkit's
  data; it grades nothing.
* :mod:`~autograder.course.fastcheck` -- ``check``'s engine: one notebook scored as ``grade`` would, without
  nbgrader's batch machinery; it writes no gradebook.
* :mod:`~autograder.course.selfcheck` -- ``check``: a learner's notebook, its assignment found, scored by the engine
  or by ``grade`` itself; it prints nothing.
* :mod:`~autograder.course.batch` -- ``grade``'s choices before grading: a share of the class, some students, the
  isolation confirmed; it grades nothing.
* :mod:`~autograder.course.demo` -- ``demo``: the sample class built and graded with its documented scores; it holds
  no expected scores.
* :mod:`~autograder.course.sample_class` -- the bundled sample class, written as real students would; it holds no
  expected scores (the tests do).
"""
