"""The nbgrader steps of the course: one class per file, and :mod:`~autograder.preprocessors.pipeline` where they are
assembled with their ordering rules.

Why a package of its own: these are nbgrader's plug-ins, loaded by dotted name from ``nbgrader_config.py`` (through
:func:`autograder.preprocessors.pipeline.configure`), so that ``nbgrader autograde``, the formgrader and
``python -m autograder grade`` run the same steps. Like the command line they sit on top: they may use the course
directory (:mod:`autograder.course.directory`, where the course's secret is), isolation and the checks, and nothing
imports them by module; the class pipeline (:mod:`autograder.course.grading`) runs them through nbgrader, not by
import (``tests/autograder/test_layers.py``). What a repair is belongs to :mod:`autograder.doctor`, how student
code is contained to :mod:`autograder.isolation`; a step here only applies them to a notebook.

* :mod:`~autograder.preprocessors.submission_doctor` -- ``Autograde``'s ``pre_convert_hook``: the file-level repairs
  (renamed, not UTF-8, old nbformat, corrupt JSON); it changes no cell.
* :mod:`~autograder.preprocessors.doctor_repairs` -- the first sanitizing preprocessor: cells matched back to the
  source, problems noted in a cell at the top; it runs no code.
* :mod:`~autograder.preprocessors.limited_execute` -- nbgrader's ``Execute`` in a limited, sandboxed kernel, for the
  outputs; it scores nothing (test cells are skipped).
* :mod:`~autograder.preprocessors.judge_tests` -- scores the test cells with the judge, seeded per student; how the
  worker is run is :mod:`autograder.isolation.judge`'s.
* :mod:`~autograder.preprocessors.sanitize_graded` -- ``Autograde``'s step before the last: the notebook written to
  ``autograded/`` (what the formgrader renders) made inert, by :mod:`autograder.inert`'s rules; it grades nothing.
* :mod:`~autograder.preprocessors.sanitize_feedback` -- ``GenerateFeedback``'s last step: no active content from a
  submission in the feedback page; it grades nothing.
* :mod:`~autograder.preprocessors.pipeline` -- the order of all of them (and nbgrader's own) and why, registered in
  an nbgrader config; it holds no step itself.
"""
