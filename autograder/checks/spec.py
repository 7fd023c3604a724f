"""The hidden checks as data: a graded function's parts, each part's cases, its reference and its judge by name.

A :class:`Spec` says everything a check does, and :func:`run_spec` is the one runner of every ``check_*`` of
:mod:`autograder.checks` and :mod:`autograder.checks.a05`. The same specs give the expected answers of the
public cases that the learner's ``check("name")`` reads (:mod:`autograder.checks.public_cases`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bpe_lab.harness import ADAPTERS, DEFAULT_TIME_LIMIT, Case, Judge, fresh_copy, make_judge, run_cases

JudgeSpec = tuple[str, Mapping[str, Any]]
"""A judge by name and parameters, e.g. ``("mapping", {"order": True, "fresh": True})``."""

ALL = "all"
"""The part of a check that has a single one (``check_pretokenize(fn)``)."""


@dataclass(frozen=True)
class Part:
    """One part of a check: its cases (built when it runs, for the seed of the moment), and what differs from the
    function's own judge or reference, if anything."""

    cases: Callable[[], list[Case]]
    judge: JudgeSpec | None = None
    reference: Callable[..., Any] | None = None


@dataclass(frozen=True)
class Spec:
    """A graded function's checks.

    ``reference``: the expected answer of a case (called on a copy of its arguments). ``judge``: by name, made by
    :func:`bpe_lab.harness.make_judge` (or by :data:`GRADER_JUDGES`, for a judge that needs the reference).
    ``adapter``: by name (:data:`bpe_lab.harness.ADAPTERS`), wraps both the learner's function and the reference.
    ``remember``: keep the reference's answers by input (the same inputs come back in several parts).
    ``measured``: parts that are no list of cases but a measurement of the learner's function (06's speed and
    memory), each a ``check(fn, time_limit)``; they have no public cases.
    """

    function: str
    reference: Callable[..., Any]
    judge: JudgeSpec
    parts: Mapping[str, Part]
    adapter: str | None = None
    remember: bool = True
    measured: Mapping[str, Callable[[Callable[..., Any], float], None]] = field(default_factory=dict)

    @property
    def all_parts(self) -> tuple[str, ...]:
        """The parts with cases, then the measured ones."""
        return (*self.parts, *self.measured)

    def judge_of(self, part: str) -> JudgeSpec:
        return self.parts[part].judge or self.judge

    def reference_of(self, part: str) -> Callable[..., Any]:
        return self.parts[part].reference or self.reference


GRADER_JUDGES: dict[str, Callable[..., Judge]] = {}
"""Judges that need the reference (``disagreeing_merges``'s), by name; filled in by the modules of the checks."""


def judge_named(spec: JudgeSpec) -> Judge:
    """The judge ``spec`` names: a grader-side one of :data:`GRADER_JUDGES`, else one of the learner's toolkit."""
    name, params = spec
    if name in GRADER_JUDGES:
        return GRADER_JUDGES[name](**dict(params))
    return make_judge(name, params)


def check_part(function: str, part: str, known: Any) -> None:
    """Raise ``ValueError`` naming ``part`` and the known ones unless ``part`` is one of ``known``."""
    if part not in known:
        raise ValueError(f"unknown part {part!r} for {function}; use one of {', '.join(map(repr, known))}")


_EXPECTED: dict[tuple[str, str], Any] = {}
MAX_REMEMBERED = 20_000
"""Answers :func:`remembered` keeps at most (about 4,000 per student for the five assignments): past it, it starts
afresh, so a process that grades a whole class on per-student inputs does not grow with the class."""


def remembered(reference: Callable[..., Any]) -> Callable[..., Any]:
    """``reference`` with its answers kept by input (at most :data:`MAX_REMEMBERED`): the same inputs come back in
    every notebook and part."""

    def expected(*args: Any) -> Any:
        key = (reference.__name__, repr(args))
        if key not in _EXPECTED:
            if len(_EXPECTED) >= MAX_REMEMBERED:
                _EXPECTED.clear()
            _EXPECTED[key] = reference(*args)
        return fresh_copy(_EXPECTED[key])

    return expected


def run_spec(spec: Spec, fn: Callable[..., Any], part: str = ALL, time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Run the part ``part`` of ``spec`` on ``fn``: ``None`` if every case passes.

    Raises:
        ValueError: an unknown part. CheckFailed: the smallest input on which ``fn`` is wrong.
    """
    __tracebackhide__ = True
    check_part(spec.function, part, spec.all_parts)
    if part in spec.measured:
        spec.measured[part](fn, time_limit)
        return
    reference = spec.reference_of(part)
    if spec.adapter is not None:
        fn, reference = ADAPTERS[spec.adapter](fn), ADAPTERS[spec.adapter](reference)
    if spec.remember:
        reference = remembered(reference)
    cases = spec.parts[part].cases()
    run_cases(spec.function, fn, cases, reference, judge_named(spec.judge_of(part)), time_limit=time_limit)
