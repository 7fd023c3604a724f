"""What the instructor reads after grading: the class report and the grades for an LMS.

Why a package of its own: both only read what nbgrader keeps (the gradebook, the autograded notebooks) and write
inert pages and CSV files. They run no student code and need no sandbox, not even through what they import
(``tests/autograder/test_layers.py``), so a report can be built on any machine that can open the gradebook.

* :mod:`~autograder.reports.report` -- the class report (pass rates, mistakes grouped by smallest failing input, flags,
  late work) as HTML or JSON; it changes no grade.
* :mod:`~autograder.reports.exports` -- Canvas and Moodle import CSVs and one CSV across shards, from gradebooks; it
  grades nothing.
* :mod:`~autograder.reports.summary` -- what the terminal shows after ``check``, ``grade`` and ``demo``, and the report
  page written beside the grades; it prints nothing itself.
"""
