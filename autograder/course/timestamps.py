"""When a submission was handed in, as the grader can defend it, not as ``timestamp.txt`` says.

nbgrader's exchange writes ``timestamp.txt`` on the student's side (``nbgrader submit``, with the student's clock),
and ``zip_collect`` writes one from a file name: the student's word. Late penalties read it. So each claim is
checked against what the student cannot set, and the time the penalty uses follows one rule:

* **bounds the student cannot move**: the clock (now); the time the grader's copy of the submission was made (the
  change time, ``ctime``, of the files in ``submitted/``: set by the kernel when ``collect`` or the grader copied
  them, whatever ``mtime`` says); the assignment's release (the change time of its folder in the exchange's
  ``outbound/``, where that exists);
* **the exchange's record**: ``nbgrader submit`` makes ``inbound/<student>+<assignment>+<timestamp>+<random>`` in
  the exchange; the latest change time of that folder and its files is when the exchange received the submission
  as it is now (the student can still write into the folder, but no change time can be set back).

The rule (:func:`defend`):

1. a claim that the exchange's record confirms (within :data:`TOLERANCE`) stands; one it contradicts is replaced by
   the record's time, flagged;
2. an impossible claim (in the future, after the grader's copy was made, before the release) or a missing or
   unreadable one is replaced by the grader's copy time (the latest time it can have been handed in: a student who
   forges a time loses the benefit of the doubt), flagged;
3. a possible claim with no record to check it against (an LMS download, a folder of notebooks) stands, and is
   flagged as unverified when the assignment has a due date (when nothing depends on it, nothing is said).

Flags are :class:`autograder.doctor.Problem` lines of kind ``timestamp``: in ``grades.csv``, the class report, the
notes at the top of the graded notebook (the formgrader and the feedback show them). In a flat folder of notebooks
no file is shared by two students: ``timestamp.txt`` is read only beside a notebook in its own folder
(:func:`autograder.course.submissions.stage`).
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..doctor import Problem

TOLERANCE = dt.timedelta(minutes=5)
"""How far a claim may be from the time that checks it (clocks drift; copies take a moment)."""
KIND = "timestamp"


@dataclass(frozen=True)
class Verdict:
    """A claimed time, the time the grader uses, and what was wrong with the claim (``""``: nothing)."""

    claimed: dt.datetime | None
    used: dt.datetime | None
    problem: str = ""


def _utc(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).replace(tzinfo=None)


def parse(text: str) -> dt.datetime | None:
    """A ``timestamp.txt`` as nbgrader reads it (naive UTC), or ``None`` when it is empty or unreadable.

    Example:
        >>> parse("2027-01-15 17:00:00.000000 UTC"), parse("soon")
        (datetime.datetime(2027, 1, 15, 17, 0), None)
    """
    from nbgrader.utils import parse_utc

    text = text.strip()
    if not text or len(text) > 100:
        return None
    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError):
        return None


def copy_time(folder: Path) -> dt.datetime | None:
    """The change time of the grader's copy of a submission: the earliest ``ctime`` of its files (``collect`` or
    the grader made them; a student cannot set a change time). ``folder`` may be one notebook (a flat folder)."""
    times = []
    for entry in folder.iterdir() if folder.is_dir() else [folder] if folder.is_file() else []:
        try:
            info = entry.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            times.append(info.st_ctime)
    return _utc(min(times)) if times else None


MAX_RECORD_ENTRIES = 10_000
"""The most files and folders read of one submission in the exchange's ``inbound/`` (:func:`exchange_record`): a
submission with more has no record the grader can read at a bounded cost."""


def _latest_change(folder: str) -> float | None:
    """The latest change time (``ctime``) of ``folder`` and of everything in it, symbolic links not followed; ``None``
    if one cannot be read or there are more than :data:`MAX_RECORD_ENTRIES`."""
    try:
        latest = os.lstat(folder).st_ctime
    except OSError:
        return None
    seen = 0

    def unreadable(error: OSError) -> None:
        raise error

    try:
        for parent, folders, files in os.walk(folder, onerror=unreadable, followlinks=False):
            for name in folders + files:
                seen += 1
                if seen > MAX_RECORD_ENTRIES:
                    return None
                latest = max(latest, os.lstat(os.path.join(parent, name)).st_ctime)
    except OSError:  # a folder the grader cannot list: what is in it is unknown
        return None
    return latest


def exchange_record(
    exchange: Path | None, course: str, assignment: str, student: str, claim: str
) -> dt.datetime | None:
    """When the exchange received the submission whose ``timestamp.txt`` says ``claim``: the latest change time of
    its ``inbound/<student>+<assignment>+<claim>[+<random>]`` folder and of every file in it, or ``None`` when there
    is no such record (or none readable within :data:`MAX_RECORD_ENTRIES`).

    The latest, not the folder's own: the student made that folder and can still write into it. Rewriting a notebook
    inside it after the deadline leaves the folder's change time as it was, but not the notebook's, and nobody can
    set a change time back (the kernel sets it to now at every change).

    Example:
        >>> exchange_record(None, "course-a", "01", "ada", "2027-01-15 16:00:00.000000 UTC") is None
        True
    """
    if exchange is None:
        return None
    inbound = exchange / course / "inbound"
    prefix = f"{student}+{assignment}+{claim.strip()}"
    try:
        entries = [e for e in os.scandir(inbound) if e.name == prefix or e.name.startswith(prefix + "+")]
    except OSError:
        return None
    times = [latest for e in entries if (latest := _latest_change(e.path)) is not None]
    return _utc(min(times)) if times else None


def release_time(exchange: Path | None, course: str, assignment: str) -> dt.datetime | None:
    """When the assignment was released: the change time of its folder in the exchange's ``outbound/``."""
    if exchange is None:
        return None
    try:
        return _utc((exchange / course / "outbound" / assignment).stat().st_ctime)
    except OSError:
        return None


def defend(
    claim_text: str | None,
    *,
    copied: dt.datetime | None,
    now: dt.datetime,
    released: dt.datetime | None = None,
    record: dt.datetime | None = None,
    duedate: dt.datetime | None = None,
) -> Verdict:
    """The time a late penalty may use for a submission, by the rule of this module's docstring.

    Args:
        claim_text: what ``timestamp.txt`` says (``None``: there is none).
        copied: when the grader's copy was made (:func:`copy_time`); ``now`` when unknown.
        now: the clock.
        released: when the assignment was released, if known.
        record: when the exchange received it (:func:`exchange_record`), if known.
        duedate: the assignment's due date, if it has one.

    Example:
        >>> now = dt.datetime(2027, 1, 20)
        >>> defend("2027-01-14 10:00:00 UTC", copied=now, now=now, released=dt.datetime(2027, 1, 10)).problem
        ''
        >>> verdict = defend("2001-01-01 00:00:00 UTC", copied=now, now=now, released=dt.datetime(2027, 1, 10))
        >>> verdict.used, verdict.problem.split(", ")[1].split(" (")[0]
        (datetime.datetime(2027, 1, 20, 0, 0), 'before the assignment was released')
    """
    latest = min(t for t in (copied, now) if t is not None)
    claimed = parse(claim_text) if claim_text is not None else None
    shown = f"{claimed:%Y-%m-%d %H:%M:%S}" if claimed else repr((claim_text or "").strip()[:40])
    if claim_text is None or claimed is None:
        what = "there is no timestamp.txt" if claim_text is None else f"timestamp.txt is unreadable ({shown})"
        if duedate is None and claim_text is None:
            return Verdict(None, None)  # nothing depends on it: nothing recorded, nothing said
        return Verdict(None, latest, f"{what}: the time the grader's copy was made, {latest:%Y-%m-%d %H:%M:%S} UTC, "
                                     "is used")  # fmt: skip
    if claimed > latest + TOLERANCE:
        return Verdict(claimed, latest, f"timestamp.txt says {shown}, after the submission was collected "
                                        f"({latest:%Y-%m-%d %H:%M:%S} UTC): that time is used")  # fmt: skip
    if released is not None and claimed < released - TOLERANCE:
        return Verdict(claimed, latest, f"timestamp.txt says {shown}, before the assignment was released "
                                        f"({released:%Y-%m-%d %H:%M:%S} UTC): the time the grader's copy was made, "
                                        f"{latest:%Y-%m-%d %H:%M:%S} UTC, is used")  # fmt: skip
    if record is not None:
        if abs(claimed - record) > TOLERANCE:
            return Verdict(claimed, record, f"timestamp.txt says {shown}, the exchange received it at "
                                            f"{record:%Y-%m-%d %H:%M:%S} UTC: that time is used")  # fmt: skip
        return Verdict(claimed, claimed)
    if duedate is not None:
        return Verdict(claimed, claimed, f"timestamp.txt ({shown}) could not be checked against the exchange: "
                                         "the student's own clock, unverified")  # fmt: skip
    return Verdict(claimed, claimed)


def check_submission(
    folder: Path,
    *,
    course: str,
    assignment: str,
    student: str,
    exchange: Path | None,
    duedate: dt.datetime | None,
    now: dt.datetime | None = None,
    copied: dt.datetime | None = None,
) -> Verdict:
    """:func:`defend` for the submission in ``folder`` (``submitted/<student>/<assignment>/``), reading its
    ``timestamp.txt`` and the exchange at ``exchange`` (``c.Exchange.root``; ``None`` or a missing folder: none).
    ``copied``: when the first copy the grader made was made, if ``folder`` is a later one (``grade``'s scratch
    copy); else :func:`copy_time` of ``folder``."""
    path = folder / "timestamp.txt"
    try:
        claim = path.read_text(encoding="utf-8", errors="replace")[:200] if path.is_file() else None
    except OSError:
        claim = None
    now = now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    exchange = exchange if exchange is not None and exchange.is_dir() else None
    return defend(
        claim,
        copied=copied or copy_time(folder),
        now=now,
        released=release_time(exchange, course, assignment),
        record=exchange_record(exchange, course, assignment, student, claim or "") if claim else None,
        duedate=duedate,
    )


def problem(verdict: Verdict) -> list[Problem]:
    """The verdict's flag as a doctor's problem line (``[]`` when the claim stands unremarked)."""
    return [Problem(KIND, verdict.problem)] if verdict.problem else []
