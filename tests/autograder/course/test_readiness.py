"""``python -m autograder doctor``'s course check: what a fresh course directory lacks, said before a class is graded,
and nothing missing once the workflow's first steps are done."""

from __future__ import annotations

from pathlib import Path

from autograder.cli import main
from autograder.course import readiness

ASSIGNMENT = "01_pair_counts_and_merge"


def _by_subject(findings: list[readiness.Finding]) -> dict[str, readiness.Finding]:
    return {f.text.split(":", 1)[0]: f for f in findings}


def _configure(course: Path, text: str) -> None:
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write("\n" + text + "\n")


def test_a_fresh_course_directory_is_told_what_it_lacks(course_copy: Path) -> None:
    _configure(course_copy, f"c.Exchange.root = {str(course_copy / 'no-exchange')!r}")
    found = _by_subject(readiness.check(course_copy))
    assert found["course id"].status == "ok" and "bpe-course" in found["course id"].text
    assert found["exchange"].status == "missing" and "no-exchange does not exist" in found["exchange"].text
    assert found["late submissions"].status == "note" and "'none'" in found["late submissions"].text
    assert found[ASSIGNMENT].status == "missing" and "python -m autograder assignments" in found[ASSIGNMENT].text
    assert not (course_copy / "gradebook.db").exists()  # looking made no gradebook


def test_after_the_first_steps_nothing_is_missing(course_copy: Path, tmp_path: Path, capsys) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    _configure(course_copy, f'c.Exchange.root = {str(exchange)!r}\nc.LateSubmissionPlugin.penalty_method = "zero"')
    dates = [f"--due={n}=2027-01-15T17:00Z" for n in ("01", "02", "03", "04", "06", "05")]
    assert main(["--course", str(course_copy), "assignments", *dates[:5]]) == 0
    found = _by_subject(readiness.check(course_copy))
    assert found[ASSIGNMENT].status == "ok" and "8 points; due 2027-01-15 17:00:00 UTC" in found[ASSIGNMENT].text
    # a penalty is configured, so an assignment without a due date is missing one: no submission of it is late
    assert found["05_byte_level_bpe"].status == "missing" and "no penalty applies" in found["05_byte_level_bpe"].text
    assert main(["--course", str(course_copy), "assignments", "05", dates[5]]) == 0
    capsys.readouterr()
    main(["--course", str(course_copy), "doctor"])
    said = capsys.readouterr().out
    assert said.startswith("sandbox: ")
    assert "nothing missing: the class can be graded" in said
    assert f"ok       {ASSIGNMENT}: 4 graded cells, 8 points; due 2027-01-15 17:00:00 UTC; not released" in said


def test_the_cgroups_line_says_what_this_machine_gives_and_how_to_get_one(monkeypatch) -> None:
    from autograder.isolation.limits import Cgroup

    here = Cgroup.create(64 * 1024**2, 16)
    counted = here is not None and here.cpu_seconds() is not None
    if here is not None:
        here.close()
    finding = readiness.cgroups()
    assert (finding.status == "ok") == counted, finding
    monkeypatch.setattr(readiness.Cgroup, "create", classmethod(lambda cls, memory, processes: None))
    none = readiness.cgroups()
    assert none.status == "note" and "systemd-run --user --scope" in none.text and "06's speed" in none.text
