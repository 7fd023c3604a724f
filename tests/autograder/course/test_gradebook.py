"""The course gradebook: nbgrader's schema head read in process, so the grader runs with nothing on PATH; recording a
submission shows no warning of nbgrader's ORM."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys

import pytest

from autograder.course import gradebook


@pytest.mark.skipif(shutil.which("alembic") is None, reason="no alembic command on PATH to compare with")
def test_the_schema_head_read_in_process_is_the_one_the_alembic_command_gives(tmp_path):
    from nbgrader import dbutil

    ini = tmp_path / "alembic.ini"
    dbutil.write_alembic_ini(str(ini), f"sqlite:///{tmp_path / 'gradebook.db'}")
    heads = subprocess.run(["alembic", "-c", str(ini), "heads"], capture_output=True, text=True, check=True).stdout
    assert gradebook.schema_head() == heads.split()[0]


@pytest.mark.slow
def test_grade_started_by_the_full_path_to_python_with_nothing_on_path_grades(course_copy, tmp_path):
    """As cron, systemd, a JupyterHub service or a Slurm job start it: nbgrader would run `alembic` by name for the
    new gradebook (FileNotFoundError) and the class would go ungraded."""
    flat = tmp_path / "class"
    flat.mkdir()
    shutil.copy(
        course_copy / "notebooks" / "01_pair_counts_and_merge" / "01_pair_counts_and_merge.ipynb", flat / "ada.ipynb"
    )
    out = tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "--course", str(course_copy), "grade", str(flat)]
    command += ["--assignment", "01_pair_counts_and_merge", "--out", str(out), "--jobs", "1", "--sandbox", "auto"]
    run = subprocess.run(
        command, env={"HOME": str(tmp_path)}, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        (row,) = csv.DictReader(handle)
    assert (row["student_id"], row["status"], row["score"]) == ("ada", "graded", "0"), run.stdout[-3000:]


def _gradebook_with_an_assignment(url: str) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(url) as book:
        book.add_assignment("01")
        book.add_notebook("01", "01")
        book.add_grade_cell("test_merge", "01", "01", max_score=2, cell_type="code")
        book.add_solution_cell("merge", "01", "01")
        book.add_source_cell("test_merge", "01", "01", cell_type="code", source="assert True", checksum="x")


def test_recording_a_new_students_submission_shows_the_instructor_no_warning_of_nbgraders(tmp_path):
    """nbgrader's add_submission makes SQLAlchemy 2 warn, with its source lines, in the middle of `grade`'s progress
    bar; the grade is recorded all the same."""
    import warnings

    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    scratch, course = f"sqlite:///{tmp_path / 'slot.db'}", f"sqlite:///{tmp_path / 'course.db'}"
    for url in (scratch, course):
        _gradebook_with_an_assignment(url)
    with Gradebook(scratch) as book, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)  # the slot's own, as nbgrader's autograde leaves it
        book.add_student("ada")
        book.add_submission("01", "ada")
        book.find_grade("test_merge", "01", "01", "ada").auto_score = 2
        book.db.commit()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SAWarning)
        gradebook.upsert_submission(course, scratch, "01", "ada")
    with Gradebook(course) as book:
        assert book.find_grade("test_merge", "01", "01", "ada").auto_score == 2


def _cache_hits(engine, action) -> list[bool]:
    """Whether each statement ``action()`` runs on ``engine`` came from SQLAlchemy's cache of compiled SQL."""
    from sqlalchemy import event

    hits: list[bool] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        hits.append(context.cache_hit == context.dialect.CACHE_HIT)

    event.listen(engine, "after_cursor_execute", record)
    try:
        action()
    finally:
        event.remove(engine, "after_cursor_execute", record)
    return hits


def test_a_gradebook_opened_again_reuses_its_engine_and_compiles_no_query_again(tmp_path, monkeypatch):
    """nbgrader makes an engine per opening, and SQLAlchemy's compiled queries live in the engine: grading opened
    each notebook's gradebook about fourteen times and compiled every query each time."""
    import nbgrader.api
    from nbgrader.api import Gradebook

    monkeypatch.setattr(nbgrader.api, "create_engine", nbgrader.api.create_engine)  # undone after the test
    url = f"sqlite:///{tmp_path / 'slot.db'}"
    _gradebook_with_an_assignment(url)

    def opened_and_read() -> list[bool]:
        with Gradebook(url) as book:
            return _cache_hits(book.engine, lambda: book.find_notebook("01", "01").grade_cells)

    if isinstance(nbgrader.api.create_engine, gradebook._ReusedEngines):  # the suite's processes are tuned
        monkeypatch.setattr(nbgrader.api, "create_engine", nbgrader.api.create_engine.create)
    opened_and_read()
    assert not any(opened_and_read()), "nbgrader's own engines: each opening compiles again"
    gradebook.reuse_engines()
    gradebook.reuse_engines()  # once is enough: not wrapped twice
    assert isinstance(nbgrader.api.create_engine, gradebook._ReusedEngines)
    assert not isinstance(nbgrader.api.create_engine.create, gradebook._ReusedEngines)
    opened_and_read()
    hits = opened_and_read()
    assert hits and all(hits)
    with Gradebook(url) as first, Gradebook(url) as second:  # opened together: one engine, both usable
        assert first.engine is second.engine
        assert first.find_assignment("01").name == second.find_assignment("01").name == "01"


def test_a_gradebook_with_its_tables_is_checked_in_one_query_and_a_missing_table_is_created(tmp_path, monkeypatch):
    """nbgrader asked about each of its 13 tables at each opening (``PRAGMA table_info``); the tables are now listed
    once, and a gradebook that lacks one still gets it from nbgrader's own ``create_all``."""
    import nbgrader.api
    import sqlalchemy
    from nbgrader.api import Gradebook
    from sqlalchemy import event

    metadata = nbgrader.api.Base.metadata
    monkeypatch.setattr(metadata, "create_all", metadata.create_all)  # undone after the test
    if isinstance(metadata.create_all, gradebook._TablesChecked):  # the suite's processes are tuned
        monkeypatch.setattr(metadata, "create_all", metadata.create_all.create_all)
    url = f"sqlite:///{tmp_path / 'course.db'}"
    _gradebook_with_an_assignment(url)
    engine = sqlalchemy.create_engine(url)
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)

    def per_table_checks() -> int:
        statements.clear()
        event.listen(sqlalchemy.engine.Engine, "before_cursor_execute", record)
        try:
            with Gradebook(url) as book:
                assert book.find_assignment("01").name == "01"
        finally:
            event.remove(sqlalchemy.engine.Engine, "before_cursor_execute", record)
        return sum("table_info" in s for s in statements)

    assert per_table_checks() >= len(metadata.tables)  # nbgrader's own: a query a table
    gradebook.check_tables_in_one_query()
    gradebook.check_tables_in_one_query()  # once is enough: not wrapped twice
    assert not isinstance(metadata.create_all.create_all, gradebook._TablesChecked)
    assert per_table_checks() == 0
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text("DROP TABLE comment"))
    assert per_table_checks() >= len(metadata.tables)  # one is missing: nbgrader's create_all makes it
    assert "comment" in sqlalchemy.inspect(engine).get_table_names()
    assert per_table_checks() == 0
    engine.dispose()


def test_a_reused_engine_reads_the_file_now_at_its_path_even_with_a_gradebook_left_open(tmp_path, monkeypatch):
    """Each grading slot grades submission after submission into a fresh file at one path (and renames it away):
    an opening must see the file there now, never one that a gradebook left open still holds."""
    import nbgrader.api
    from nbgrader.api import Gradebook

    monkeypatch.setattr(nbgrader.api, "create_engine", nbgrader.api.create_engine)
    gradebook.reuse_engines()
    live, handed = tmp_path / "live.db", tmp_path / "ada.db"
    url = f"sqlite:///{live}"
    _gradebook_with_an_assignment(url)
    left_open = Gradebook(url)
    left_open.add_student("ada")
    left_open.db.commit()
    live.rename(handed)
    _gradebook_with_an_assignment(url)  # a fresh file at the same path
    with Gradebook(url) as book:
        assert [s.id for s in book.students] == []
        book.add_student("bob")
        book.db.commit()
    left_open.close()
    with Gradebook(f"sqlite:///{handed}") as book:
        assert [s.id for s in book.students] == ["ada"]
    with Gradebook(url) as book:
        assert [s.id for s in book.students] == ["bob"]


def test_a_scratch_gradebook_writes_without_syncing_and_the_course_gradebook_with_sqlites_defaults(
    tmp_path, monkeypatch
):
    """A slot's scratch gradebook (deleted once published) does not wait for the disk at each of nbgrader's
    commits; the course's gradebook, which keeps the grades, does."""
    import nbgrader.api
    import sqlalchemy
    from nbgrader.api import Gradebook

    monkeypatch.setattr(nbgrader.api, "create_engine", nbgrader.api.create_engine)
    gradebook.reuse_engines()
    scratch = gradebook.scratch_url(tmp_path / "slots" / "1" / "live.db")
    course = f"sqlite:///{tmp_path / 'gradebook.db'}"
    (tmp_path / "slots" / "1").mkdir(parents=True)
    settings = {}
    for url in (scratch, course):
        with Gradebook(url) as book:
            book.add_student("ada")
            book.db.commit()
            settings[url] = [
                book.db.execute(sqlalchemy.text(f"PRAGMA {p}")).scalar() for p in ("synchronous", "journal_mode")
            ]
        with Gradebook(url) as book:
            assert [s.id for s in book.students] == ["ada"]  # what was written is there
    assert settings == {scratch: [0, "memory"], course: [2, "delete"]}
