"""Isolation: everything that decides what student code sees and may spend, and the processes it runs in.

Why a package of its own: this is the only room that starts student code (a Jupyter kernel, the judge's worker) and
the only one that knows bubblewrap, cgroups and rlimits. Fail closed lives here: without isolation, grading for marks
refuses. It knows nothing of nbgrader's steps, the class, the gradebook or the hidden checks' cases; the steps
(:mod:`autograder.preprocessors`) and ``check``'s engine (:mod:`autograder.course.fastcheck`) call into it, and
the report side (:mod:`autograder.reports`) and the checks (:mod:`autograder.checks`) never need it
(``tests/autograder/test_layers.py``).

* :mod:`~autograder.isolation.sandbox` -- the bubblewrap allowlist file system student code sees; it sets no limits.
* :mod:`~autograder.isolation.limits` -- cgroups, rlimits and the commands that apply them, and the sandbox's status
  line; it builds no file system.
* :mod:`~autograder.isolation.kernel` -- :class:`~autograder.isolation.kernel.LimitedKernelManager`, a Jupyter kernel
  started in the sandbox under the limits; it runs no cell (nbgrader's ``Execute`` step does).
* :mod:`~autograder.isolation.learner_install` -- the distributions of the learner's install and their files, the
  allowlist the sandbox shows; it starts nothing.
* :mod:`~autograder.isolation.judge` -- the grader's side of the judge: a sandboxed worker, calls into it answered
  with plain data, test cells run in the grader on those answers; it is no nbgrader step and knows no course secret.
* :mod:`~autograder.isolation.judge_worker` -- the worker program itself, run as ``python -I -c <its text>``;
  standard library only, never imported by the grader.
"""
