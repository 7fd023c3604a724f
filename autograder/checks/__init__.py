"""The hidden checks: what a graded function must do, as data and as the one-line calls of the notebooks' hidden tests.

A notebook's hidden test is a one-line call, for example ``check_merge(merge, "overlaps")``. A check
returns ``None`` when every case passes (nbgrader then gives the cell its points) and raises
:class:`~bpe_lab.harness.CheckFailed` with a three-line message naming the smallest failing input
otherwise. Checks are deterministic and accept any correct style: a ``Counter`` or ``defaultdict``
where a dict is asked is a dict; a tuple where a list is asked is a sequence. The ``part`` argument chooses the
group of cases, so that one notebook can give partial credit: ``"basic"`` is the main behaviour on ordinary inputs;
the other parts are the conventions of the spec.

Why a package of its own: a check is a pure function of the learner's function and the reference (:mod:`bpe_ref`).
It runs in whatever process calls it (the grader's, when the judge runs a test cell; the learner's, for a
self-check's public cases), so it starts no process, knows no sandbox, course folder or nbgrader, and imports
nothing of :mod:`autograder` outside this package (``tests/autograder/test_layers.py`` holds it to that).
One module per assignment, so a new assignment adds one file.

* :mod:`~autograder.checks.spec` -- a check as data (:class:`~autograder.checks.spec.Spec`: parts, cases, reference,
  judge) and :func:`~autograder.checks.spec.run_spec`, the one runner; no cases of its own.
* :mod:`~autograder.checks.cases` -- the seeds (public, or per student from the course's secret) and the generators
  of inputs the assignments share; it does not find the course's secret file (its callers name it).
* :mod:`~autograder.checks.a01` ... :mod:`~autograder.checks.a06` -- each assignment's checks and fixed cases.
* :mod:`~autograder.checks.public_cases` -- the expected answers of the public cases, written into
  ``bpe_lab/data/expected/`` for the learner's ``check``; it grades nothing.

``from autograder.checks import check_merge`` (and every ``check_*``) keeps working: they are re-exported here, with
:data:`SPECS`, every graded function's spec by name.
"""

from __future__ import annotations

from bpe_lab.harness import CheckFailed

from . import a01, a02, a03, a04, a05, a06
from .a01 import check_get_pair_counts, check_merge
from .a02 import check_count_pairs, check_merge_vocab, check_train_bpe
from .a03 import check_best_pair, check_bpe_train, check_learn_bpe
from .a04 import check_apply_bpe, check_counterexample, check_encode
from .a05 import check_decode_bytes, check_encode_bytes, check_encode_ranks, check_pretokenize, check_train_bytes
from .a06 import (
    check_bytes_to_unicode,
    check_chunk_counts,
    check_chunk_counts_file,
    check_encode_iterable,
    check_gpt2_files,
    check_train_fast,
)
from .spec import Spec

SPECS: dict[str, Spec] = {**a01.SPECS, **a02.SPECS, **a03.SPECS, **a04.SPECS, **a05.SPECS, **a06.SPECS}
"""Every graded function's check as data, by function name, assignments 01-06."""

__all__ = [
    "check_train_fast",
    "check_gpt2_files",
    "check_encode_iterable",
    "check_chunk_counts_file",
    "check_chunk_counts",
    "check_bytes_to_unicode",
    "SPECS",
    "CheckFailed",
    "check_apply_bpe",
    "check_best_pair",
    "check_bpe_train",
    "check_count_pairs",
    "check_counterexample",
    "check_decode_bytes",
    "check_encode",
    "check_encode_bytes",
    "check_encode_ranks",
    "check_get_pair_counts",
    "check_learn_bpe",
    "check_merge",
    "check_merge_vocab",
    "check_pretokenize",
    "check_train_bytes",
    "check_train_bpe",
]
