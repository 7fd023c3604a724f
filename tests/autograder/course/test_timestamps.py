"""autograder.course.timestamps: the time a late penalty uses is one the grader can defend."""

import datetime as dt
import os
import time

import pytest

from autograder.course import timestamps

NOW = dt.datetime(2027, 1, 20, 12, 0)
RELEASED = dt.datetime(2027, 1, 10)
DUE = dt.datetime(2027, 1, 15, 17, 0)


def test_a_claim_between_the_release_and_the_copy_stands_and_is_said_unverified_only_with_a_due_date():
    verdict = timestamps.defend("2027-01-15 16:00:00 UTC", copied=NOW, now=NOW, released=RELEASED, duedate=DUE)
    assert verdict.used == dt.datetime(2027, 1, 15, 16, 0) and "unverified" in verdict.problem
    assert timestamps.defend("2027-01-15 16:00:00 UTC", copied=NOW, now=NOW, released=RELEASED).problem == ""


@pytest.mark.parametrize(
    "claim, why",
    [
        ("2001-01-01 00:00:00 UTC", "before the assignment was released"),
        ("2099-01-01 00:00:00 UTC", "after the submission was collected"),
        ("2027-01-20 13:00:00 UTC", "after the submission was collected"),  # after the grader's copy, not the clock
        ("next tuesday", "unreadable"),
        (None, "there is no timestamp.txt"),
    ],
)
def test_an_impossible_or_missing_claim_gives_the_time_of_the_graders_copy_and_a_flag(claim, why):
    copied = dt.datetime(2027, 1, 20, 11, 0)
    verdict = timestamps.defend(claim, copied=copied, now=NOW, released=RELEASED, duedate=DUE)
    assert verdict.used == copied and why in verdict.problem
    assert timestamps.problem(verdict)[0].kind == "timestamp"


def test_the_exchange_record_overrules_a_claim_it_contradicts():
    record = dt.datetime(2027, 1, 16, 9, 0)
    verdict = timestamps.defend("2027-01-15 16:00:00 UTC", copied=NOW, now=NOW, released=RELEASED, record=record)
    assert verdict.used == record and "the exchange received it" in verdict.problem
    close = timestamps.defend("2027-01-16 09:01:00 UTC", copied=NOW, now=NOW, released=RELEASED, record=record)
    assert close.problem == "" and close.used == dt.datetime(2027, 1, 16, 9, 1)


def test_the_exchange_record_is_the_inbox_folder_of_that_claim(tmp_path):
    claim = "2027-01-15 16:00:00.000000 UTC"
    inbound = tmp_path / "course-a" / "inbound"
    (inbound / f"ada+01+{claim}+abcd").mkdir(parents=True)
    (inbound / f"bob+01+{claim}+efgh").mkdir()
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(seconds=5)
    found = timestamps.exchange_record(tmp_path, "course-a", "01", "ada", claim)
    assert found is not None and found >= before
    assert timestamps.exchange_record(tmp_path, "course-a", "01", "ada", "2027-01-15 15:00:00.000000 UTC") is None
    assert timestamps.exchange_record(None, "course-a", "01", "ada", claim) is None


def test_the_copy_time_is_a_change_time_a_student_cannot_set(tmp_path):
    notebook = tmp_path / "01.ipynb"
    notebook.write_text("{}")
    os.utime(notebook, (0, 0))  # an mtime from 1970, as a crafted archive would carry
    copied = timestamps.copy_time(tmp_path)
    assert copied is not None and abs(copied - dt.datetime.fromtimestamp(time.time(), dt.timezone.utc).replace(
        tzinfo=None)) < dt.timedelta(minutes=1)  # fmt: skip


def test_a_notebook_rewritten_in_its_inbox_folder_moves_the_record_to_the_rewrite(tmp_path):
    """The student made the inbound folder and can write into it after the deadline: the folder's own change time
    stays, the rewritten notebook's does not, and the record is the latest of them."""
    import os
    import time

    claim = "2027-01-15 16:00:00.000000 UTC"
    folder = tmp_path / "course-a" / "inbound" / f"ada+01+{claim}+abcd"
    folder.mkdir(parents=True)
    notebook = folder / "01.ipynb"
    notebook.write_text("{}", encoding="utf-8")
    first = timestamps.exchange_record(tmp_path, "course-a", "01", "ada", claim)
    time.sleep(0.05)
    with open(notebook, "w", encoding="utf-8") as handle:  # in place: the folder's entries do not change
        handle.write('{"cells": []}')
    rewritten = dt.datetime.fromtimestamp(os.lstat(notebook).st_ctime, dt.timezone.utc).replace(tzinfo=None)
    assert dt.datetime.fromtimestamp(os.lstat(folder).st_ctime, dt.timezone.utc).replace(tzinfo=None) < rewritten
    found = timestamps.exchange_record(tmp_path, "course-a", "01", "ada", claim)
    assert first is not None and found is not None and first < found
    assert abs(found - rewritten) < dt.timedelta(milliseconds=1)


def test_an_inbox_folder_too_large_to_read_has_no_record(tmp_path, monkeypatch):
    claim = "2027-01-15 16:00:00.000000 UTC"
    folder = tmp_path / "course-a" / "inbound" / f"ada+01+{claim}+abcd"
    folder.mkdir(parents=True)
    for index in range(4):
        (folder / f"{index}.txt").write_text("x", encoding="utf-8")
    monkeypatch.setattr(timestamps, "MAX_RECORD_ENTRIES", 3)
    assert timestamps.exchange_record(tmp_path, "course-a", "01", "ada", claim) is None
    monkeypatch.setattr(timestamps, "MAX_RECORD_ENTRIES", 4)
    assert timestamps.exchange_record(tmp_path, "course-a", "01", "ada", claim) is not None
