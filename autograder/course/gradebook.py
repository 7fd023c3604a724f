"""The course's nbgrader gradebook: assignments put in once, each graded submission upserted, nothing rebuilt.

``grade`` scores submissions in scratch workspaces with private SQLite gradebooks (so parallel workers never
contend for one database), then moves each result into the course's gradebook (``CourseDirectory.db_url``:
SQLite by default, PostgreSQL by URL) with nbgrader's own API, as nbgrader's ``SaveAutoGrades`` would have
written it there: only the automatic fields change. What an instructor entered in the formgrader (manual
scores, extra credit, manual comments, flags), the student's roster fields (name, e-mail, LMS id) and an
assignment's due date are never touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def schema_head() -> str:
    """The head revision of nbgrader's gradebook schema, read in this process from nbgrader's own migrations.

    nbgrader asks the ``alembic`` command for it, by name, each time it creates a gradebook
    (``nbgrader.api.get_alembic_version``): a Python process of its own (about 2 s of CPU), and a
    ``FileNotFoundError: 'alembic'`` wherever the environment's ``bin/`` is not on ``PATH``, which is how cron,
    systemd, JupyterHub services and cluster jobs start ``/path/to/venv/bin/python -m autograder grade``.

    Example:
        >>> len(schema_head())  # nbgrader 0.9's: 'e43177bfe90b'
        12
    """
    from alembic.script import ScriptDirectory
    from nbgrader import dbutil

    return str(ScriptDirectory(dbutil.ALEMBIC_DIR).get_current_head())


def read_schema_head_in_process() -> None:
    """Make nbgrader read its schema head with :func:`schema_head` (once per process) instead of running the
    ``alembic`` command. Called by the course's command line and by ``nbgrader_config.py`` (through
    :func:`autograder.preprocessors.pipeline.configure`), so every nbgrader command of the course gets it."""
    import functools

    import nbgrader.api

    if not hasattr(nbgrader.api.get_alembic_version, "cache_info"):
        nbgrader.api.get_alembic_version = functools.cache(schema_head)


ENGINES_KEPT = 8
"""Databases whose SQLAlchemy engine :func:`reuse_engines` keeps (the most recently opened)."""

_SCRATCH: set[str] = set()


def scratch_url(path: Path) -> str:
    """The URL of the SQLite gradebook at ``path``, one that a grading slot writes a submission into and that is
    deleted once the course's gradebook has its grades: in this process, its writes are not synced to disk
    (``PRAGMA synchronous=OFF``, the journal in memory), so nbgrader's seventy-odd commits a notebook do not each
    wait for the disk (7 to 14 ms a commit on a shared machine's disk, against 0.02 ms). Lost in a crash, such a
    gradebook costs nothing: the submission is graded again. The course's gradebook keeps SQLite's defaults.
    Takes effect where :func:`reuse_engines` is on (the course's command line, ``nbgrader_config.py``).

    Example:
        >>> scratch_url(Path("out/slots/1/gradebooks/live.db")).endswith("live.db")
        True
    """
    import os

    _SCRATCH.add(os.path.abspath(path))
    return f"sqlite:///{path}"


def _unsynced(dbapi_connection: Any, record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute("PRAGMA journal_mode=MEMORY")
    cursor.close()


class _ReusedEngines:
    """``create_engine`` for nbgrader's ``Gradebook``, giving the same database its engine again (see
    :func:`reuse_engines`)."""

    def __init__(self, create: Any) -> None:
        import collections
        import threading

        self.create = create
        self.engines: collections.OrderedDict[tuple[str, str], Any] = collections.OrderedDict()
        self.lock = threading.Lock()

    def __call__(self, url: Any, **kwargs: Any) -> Any:
        from sqlalchemy.engine import make_url

        key = (make_url(url).render_as_string(hide_password=False), repr(sorted(kwargs.items())))
        with self.lock:
            engine = self.engines.pop(key, None)
            if engine is None:
                engine = self.create(url, **kwargs)
                if _is_scratch(url):
                    import sqlalchemy

                    sqlalchemy.event.listen(engine, "connect", _unsynced)
            else:  # a fresh pool: a connection an earlier gradebook left open (on a file since replaced) is not reused
                engine.dispose()
            self.engines[key] = engine
            while len(self.engines) > ENGINES_KEPT:
                self.engines.popitem(last=False)
        return engine


def _is_scratch(url: Any) -> bool:
    import os

    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and os.path.abspath(parsed.database or ":memory:") in _SCRATCH


def reuse_engines() -> None:
    """Make every ``nbgrader.api.Gradebook`` of this process opened on a database it opened recently reuse that
    database's SQLAlchemy engine (a fresh connection pool each time, the same compiled statements).

    nbgrader makes a new engine each time it opens a gradebook, and SQLAlchemy keeps the SQL it compiled from its
    queries in the engine (the cache key holds the engine's dialect): every opening compiled every query again.
    Grading one notebook opens its gradebook about fourteen times (nbgrader's ``autograde`` steps and the course's
    own), so about 0.2 s of the grader's CPU a notebook went to compiling the same few statements. The last
    :data:`ENGINES_KEPT` databases' engines are kept. Called with :func:`read_schema_head_in_process` by the course's
    command line and ``nbgrader_config.py`` (:func:`tune_nbgrader`).

    Example:
        >>> import nbgrader.api
        >>> reuse_engines()
        >>> nbgrader.api.create_engine("sqlite://") is nbgrader.api.create_engine("sqlite://")
        True
    """
    import nbgrader.api

    if not isinstance(nbgrader.api.create_engine, _ReusedEngines):
        nbgrader.api.create_engine = _ReusedEngines(nbgrader.api.create_engine)


def check_tables_in_one_query() -> None:
    """Make nbgrader's check that a gradebook has its tables one query instead of one per table.

    Each time nbgrader opens a gradebook, ``Base.metadata.create_all`` asks the database about each of its 13
    tables in turn (``PRAGMA table_info`` on SQLite) before creating any that is missing: about 3 ms of CPU an
    opening, and grading a notebook opens its gradebook about fourteen times. Now the tables are listed in one
    query; where every table of the schema is there, nothing more is asked, and otherwise nbgrader's own
    ``create_all`` runs as before (it creates only the missing ones; it never alters an existing table either
    way). Called by :func:`tune_nbgrader`.

    Example:
        >>> import nbgrader.api, sqlalchemy
        >>> check_tables_in_one_query()
        >>> engine = sqlalchemy.create_engine("sqlite://")
        >>> nbgrader.api.Base.metadata.create_all(bind=engine)  # an empty database: nbgrader's create_all runs
        >>> "submitted_notebook" in sqlalchemy.inspect(engine).get_table_names()
        True
    """
    import nbgrader.api

    metadata = nbgrader.api.Base.metadata
    if isinstance(metadata.create_all, _TablesChecked):
        return
    metadata.create_all = _TablesChecked(metadata)


class _TablesChecked:
    """``create_all`` of nbgrader's schema that lists the database's tables once (see
    :func:`check_tables_in_one_query`)."""

    def __init__(self, metadata: Any) -> None:
        self.metadata = metadata
        self.create_all = metadata.create_all

    def __call__(self, bind: Any, tables: Any = None, checkfirst: bool = True) -> None:
        import sqlalchemy

        if checkfirst and tables is None:
            present = set(sqlalchemy.inspect(bind).get_table_names())
            if all(table.schema is None and table.name in present for table in self.metadata.sorted_tables):
                return
        self.create_all(bind=bind, tables=tables, checkfirst=checkfirst)


def tune_nbgrader() -> None:
    """This module's changes to nbgrader's gradebook, once per process: its schema head read in process
    (:func:`read_schema_head_in_process`), its engines reused (:func:`reuse_engines`) and its tables checked in one
    query (:func:`check_tables_in_one_query`)."""
    read_schema_head_in_process()
    reuse_engines()
    check_tables_in_one_query()


ADVISORY_LOCK = 20161
"""PostgreSQL advisory lock taken while assignments are created, so shards on several machines take turns."""


@contextmanager
def _locked(db_url: str) -> Iterator[None]:
    """Hold the course-wide advisory lock (PostgreSQL); other databases serialise writes themselves."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(db_url)
    try:
        with engine.connect() as connection:
            postgres = engine.dialect.name == "postgresql"
            if postgres:
                connection.execute(sqlalchemy.text(f"SELECT pg_advisory_lock({ADVISORY_LOCK})"))
            try:
                yield
            finally:
                if postgres:
                    connection.execute(sqlalchemy.text(f"SELECT pg_advisory_unlock({ADVISORY_LOCK})"))
    finally:
        engine.dispose()


def ensure_assignments(course_url: str, template_url: str, names: list[str], refresh: bool = False) -> list[str]:
    """Copy the assignments ``names`` from a prepared gradebook into the course's, where they are missing.

    An assignment already in the course gradebook with its notebooks (made by ``nbgrader generate_assignment``,
    or by an earlier run) is left as it is, unless ``refresh``: then its notebooks and cells are brought up to date
    with the prepared gradebook (points, checksums, source; nothing is removed). One made by ``nbgrader db
    assignment add`` (a due date, no notebooks yet) gets its notebooks. A due date is never touched.

    Args:
        course_url: the course gradebook (SQLAlchemy URL).
        template_url: a gradebook prepared by ``nbgrader generate_assignment`` from the course's source.
        names: assignment ids.
        refresh: update the notebooks and cells of assignments that are already there (``assignments`` does).

    Returns:
        The assignments created.

    Example:
        >>> ensure_assignments("sqlite:///gradebook.db", "sqlite:///template.db", ["01"])  # doctest: +SKIP
        ['01']
    """
    from nbgrader.api import Gradebook, MissingEntry

    created = []
    with _locked(course_url), Gradebook(template_url) as template, Gradebook(course_url) as course:
        for name in names:
            try:
                if course.find_assignment(name).notebooks and not refresh:
                    continue
            except MissingEntry:
                course.add_assignment(name)
            try:
                source = template.find_assignment(name)
            except MissingEntry:
                continue
            for notebook in source.notebooks:
                course.update_or_create_notebook(notebook.name, name)
                for cell in notebook.grade_cells:
                    course.update_or_create_grade_cell(
                        cell.name, notebook.name, name, max_score=cell.max_score, cell_type=cell.cell_type
                    )
                for cell in notebook.solution_cells:
                    course.update_or_create_solution_cell(cell.name, notebook.name, name)
                for cell in notebook.task_cells:
                    course.update_or_create_task_cell(
                        cell.name, notebook.name, name, max_score=cell.max_score, cell_type=cell.cell_type
                    )
                for cell in notebook.source_cells:
                    course.update_or_create_source_cell(
                        cell.name,
                        notebook.name,
                        name,
                        source=cell.source,
                        cell_type=cell.cell_type,
                        locked=cell.locked,
                        checksum=cell.checksum,
                    )
            created.append(name)
    return created


@contextmanager
def quiet_submission_cascade() -> Iterator[None]:
    """Meanwhile, no SQLAlchemy warning "Object of type <SubmittedAssignment> not in session, add operation along
    'Student.submissions' will not proceed" (or ``<SubmittedNotebook>``): nbgrader's ``Gradebook.add_submission``
    reads a relationship of the submission it is building before adding it to the session, so SQLAlchemy 2's
    autoflush warns; nbgrader then adds and commits it, and nothing is lost. Without this an instructor's terminal
    shows the warning, with its source lines, in the middle of the progress bar of every run.

    Example:
        >>> import warnings
        >>> from sqlalchemy.exc import SAWarning
        >>> with warnings.catch_warnings(record=True) as seen:
        ...     warnings.simplefilter("always")
        ...     with quiet_submission_cascade():
        ...         warnings.warn("Object of type <SubmittedNotebook> not in session, add operation ...", SAWarning)
        ...         warnings.warn("Object of type <Student> not in session ...", SAWarning)
        >>> [str(w.message) for w in seen]
        ['Object of type <Student> not in session ...']
    """
    import warnings

    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"Object of type <Submitted\w+> not in session", SAWarning)
        yield


def upsert_submission(course_url: str, scratch_url: str, assignment: str, student: str) -> dict[str, Any]:
    """Write one graded submission from a scratch gradebook into the course's; keep every manual entry.

    Per grade: ``auto_score`` is replaced and ``needs_manual_grade`` set as nbgrader's ``SaveAutoGrades`` sets
    it (review needed where a manual score exists or no automatic score could be given); ``manual_score`` and
    ``extra_credit`` stay; the doctor's flag is raised, never cleared. Per comment: ``auto_comment`` replaced,
    ``manual_comment`` kept. The submission's timestamp (``timestamp.txt``) is recorded, so nbgrader's late penalties
    apply.

    Args:
        course_url: the course gradebook.
        scratch_url: the gradebook the submission was just graded into.
        assignment: the assignment id.
        student: the student id (created in the course gradebook if new; roster fields of a known student stay).

    Returns:
        ``{"manual": bool, "seconds_late": float}``: whether the instructor has entered anything by hand for this
        submission (its feedback must then come from the course gradebook), and how late it is.

    Raises:
        nbgrader.api.MissingEntry: the scratch gradebook holds no such submission.

    Example:
        >>> upsert_submission("sqlite:///gradebook.db", "sqlite:///slot.db", "01", "alice")  # doctest: +SKIP
        {'manual': False, 'seconds_late': 0.0}
    """
    from nbgrader.api import Gradebook

    with Gradebook(scratch_url) as scratch, Gradebook(course_url) as course, quiet_submission_cascade():
        graded = scratch.find_submission(assignment, student)
        try:
            course.find_student(student)
        except Exception:
            course.add_student(student)
        submission = course.update_or_create_submission(assignment, student, timestamp=graded.timestamp)
        manual = False
        for notebook in graded.notebooks:
            target = course.find_submission_notebook(notebook.name, assignment, student)
            grades = {g.name: g for g in target.grades}
            for grade in notebook.grades:
                mine = grades[grade.name]
                mine.auto_score = grade.auto_score
                mine.needs_manual_grade = mine.manual_score is not None or mine.auto_score is None
                manual = manual or mine.manual_score is not None or bool(mine.extra_credit)
            comments = {c.name: c for c in target.comments}
            for comment in notebook.comments:
                mine = comments[comment.name]
                mine.auto_comment = comment.auto_comment
                manual = manual or bool(mine.manual_comment)
            manual = manual or bool(target.flagged)
            if notebook.flagged:  # the doctor's flag (DoctorRepairs); one the instructor set or cleared stays theirs
                target.flagged = True
        course.db.commit()
        return {"manual": manual, "seconds_late": float(submission.total_seconds_late or 0)}


def set_due_dates(course_url: str, due: dict[str, Any]) -> None:
    """Set the due date of each assignment of ``due`` (``{id: naive UTC datetime}``) in the course gradebook, creating
    the assignment where it is missing (nbgrader's ``update_or_create_assignment``).

    Example:
        >>> set_due_dates("sqlite:///gradebook.db", {"01": datetime(2027, 1, 15, 17)})  # doctest: +SKIP
    """
    from nbgrader.api import Gradebook

    with _locked(course_url), Gradebook(course_url) as course:
        for name, when in due.items():
            course.update_or_create_assignment(name, duedate=when)


def duedate_of(course_url: str, assignment: str) -> Any:
    """The assignment's due date in the course gradebook, or ``None``."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(course_url) as course:
        try:
            return course.find_assignment(assignment).duedate
        except MissingEntry:
            return None


def final_score(score: float, penalty: float) -> float:
    """A submission's final score: nbgrader's score (each grade's manual score where the instructor gave one, else its
    automatic score, plus extra credit: ``nbgrader.api.Grade.score``) less its late penalty, never below 0, exactly as
    ``nbgrader export`` computes it. The one rule every table, CSV and report of the course shows.

    Example:
        >>> final_score(5.0, 2.0), final_score(1.0, 2.0)
        (3.0, 0.0)
    """
    return max(0.0, score - penalty)


@dataclass
class FinalGrade:
    """One submission as the course gradebook holds it once the instructor has had their say."""

    student: str
    assignment: str
    score: float
    """The final score (:func:`final_score`)."""
    max_score: float
    autograded: float
    """The automatic points alone, before manual grades, extra credit and the late penalty."""
    late_penalty: float = 0.0
    seconds_late: float = 0.0
    manual: bool = False
    """A manual score or extra credit stands in the place of some automatic points."""
    cells: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Per graded cell (its ``grade_id``): the points nbgrader counts (manual or automatic, plus extra credit) and
    the cell's maximum."""
    submitted: bool = True
    """``False``: a student of the roster with no submission of an assignment that others handed in (0 points, as
    ``nbgrader export`` lists them)."""


def final_grades(course_url: str, assignments: list[str] | None = None) -> dict[tuple[str, str], FinalGrade]:
    """Every submission of the course gradebook (the whole class, whoever graded it: ``grade``, a shard, the
    formgrader), with its final score, by ``(student, assignment)``.

    Args:
        course_url: the course gradebook (SQLAlchemy URL).
        assignments: only these assignments (default: all of the gradebook's).

    Returns:
        ``{(student, assignment): FinalGrade}``; sorted by assignment, then student. An assignment that some students
        handed in lists the roster's other students too, with 0 points and ``submitted`` false.

    Raises:
        Whatever nbgrader's :class:`~nbgrader.api.Gradebook` raises for a gradebook it cannot open.

    Example:
        >>> final_grades("sqlite:///gradebook.db")["ada", "01_pair_counts_and_merge"].score  # doctest: +SKIP
        5.0
    """
    from nbgrader.api import Gradebook

    found: dict[tuple[str, str], FinalGrade] = {}
    with Gradebook(course_url) as gradebook:
        roster = sorted(student.id for student in gradebook.students)
        for assignment in sorted(gradebook.assignments, key=lambda a: a.name):
            if assignments is not None and assignment.name not in assignments:
                continue
            # each cell's maximum once per assignment (nbgrader's Grade.max_score is a deferred query per grade)
            tops = {
                (notebook.name, cell.name): float(cell.max_score or 0)
                for notebook in assignment.notebooks
                for cell in notebook.grade_cells
            }
            for submission in sorted(assignment.submissions, key=lambda s: s.student.id):
                penalty = float(submission.late_submission_penalty or 0)
                grade = FinalGrade(
                    submission.student.id,
                    assignment.name,
                    final_score(float(submission.score or 0), penalty),
                    float(sum(tops.values())),
                    0.0,
                    penalty,
                    float(submission.total_seconds_late or 0),
                )
                for notebook in submission.notebooks:
                    for cell in notebook.grades:
                        top = tops.get((notebook.name, cell.name), 0.0)
                        grade.cells[cell.name] = (float(cell.score or 0), top)
                        grade.autograded += float(cell.auto_score or 0)
                        grade.manual = grade.manual or cell.manual_score is not None or bool(cell.extra_credit)
                found[submission.student.id, assignment.name] = grade
            if assignment.submissions:
                for student in roster:
                    if (student, assignment.name) not in found:
                        top = float(sum(tops.values()))
                        found[student, assignment.name] = FinalGrade(
                            student, assignment.name, 0.0, top, 0.0, submitted=False
                        )
    return dict(sorted(found.items(), key=lambda item: (item[0][1], item[0][0])))
