"""The drill's history: every attempt at an exercise, in a small SQLite file in the user's data folder.

The file is ``drill.sqlite3`` in ``platformdirs.user_data_dir("bpe-lab")`` (``~/.local/share/bpe-lab`` on Linux),
or in ``$BPE_LAB_DATA`` when that is set. One row per attempt: the exercise, how it was started (``drill`` or
``mock``, with the mock's time limit), when, the workspace, the hints revealed, the checks that failed, and when it
passed or was given up. Only the judge's process writes it (:mod:`bpe_lab.drill`), never the learner's code.

Example:
    >>> with History(":memory:") as history:
    ...     attempt = history.start("merge", "/tmp/merge.py")
    ...     history.hint(attempt.id)
    ...     history.current("merge").hints
    1
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    exercise TEXT NOT NULL,
    mode TEXT NOT NULL DEFAULT 'drill',
    time_limit REAL,
    started REAL NOT NULL,
    path TEXT NOT NULL,
    hints INTEGER NOT NULL DEFAULT 0,
    failed_checks INTEGER NOT NULL DEFAULT 0,
    passed REAL,
    gave_up REAL
)
"""


def data_folder() -> Path:
    """``$BPE_LAB_DATA``, else the user's data folder for ``bpe-lab`` (``platformdirs``)."""
    if os.environ.get("BPE_LAB_DATA"):
        return Path(os.environ["BPE_LAB_DATA"])
    import platformdirs

    return Path(platformdirs.user_data_dir("bpe-lab", appauthor=False))


@dataclass(frozen=True)
class Attempt:
    """One row of the history; ``seconds`` is the time to pass (or to give up, or so far)."""

    id: int
    exercise: str
    mode: str
    time_limit: float | None
    started: float
    path: str
    hints: int
    failed_checks: int
    passed: float | None
    gave_up: float | None

    @property
    def open(self) -> bool:
        return self.passed is None and self.gave_up is None

    @property
    def seconds(self) -> float:
        return (self.passed or self.gave_up or time.time()) - self.started


class History:
    """The attempts, in the SQLite file at ``path`` (default: :func:`data_folder`'s ``drill.sqlite3``)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            folder = data_folder()
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "drill.sqlite3"
        self.path = str(path)
        self.db = sqlite3.connect(self.path)
        self.db.execute(SCHEMA)
        self.db.commit()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def _rows(self, where: str = "", args: tuple = ()) -> list[Attempt]:
        cursor = self.db.execute(f"SELECT * FROM attempts {where} ORDER BY id", args)
        return [Attempt(*row) for row in cursor.fetchall()]

    def start(self, exercise: str, path: str, mode: str = "drill", time_limit: float | None = None) -> Attempt:
        """A new attempt at ``exercise`` from now (an open one of the same exercise is closed as given up)."""
        now = time.time()
        self.db.execute("UPDATE attempts SET gave_up = ? WHERE exercise = ? AND passed IS NULL AND gave_up IS NULL",
                        (now, exercise))  # fmt: skip
        self.db.execute("INSERT INTO attempts (exercise, mode, time_limit, started, path) VALUES (?, ?, ?, ?, ?)",
                        (exercise, mode, time_limit, now, str(path)))  # fmt: skip
        self.db.commit()
        return self._rows("WHERE id = last_insert_rowid()")[0]

    def current(self, exercise: str) -> Attempt | None:
        """The latest attempt at ``exercise`` (open or not), or ``None``."""
        rows = self._rows("WHERE exercise = ?", (exercise,))
        return rows[-1] if rows else None

    def hint(self, attempt: int) -> None:
        """One more hint revealed in ``attempt``."""
        self.db.execute("UPDATE attempts SET hints = hints + 1 WHERE id = ?", (attempt,))
        self.db.commit()

    def failed(self, attempt: int) -> None:
        """One more failed check in ``attempt``."""
        self.db.execute("UPDATE attempts SET failed_checks = failed_checks + 1 WHERE id = ? AND passed IS NULL",
                        (attempt,))  # fmt: skip
        self.db.commit()

    def passed(self, attempt: int) -> None:
        """``attempt`` passed now (its first pass counts)."""
        self.db.execute("UPDATE attempts SET passed = ? WHERE id = ? AND passed IS NULL AND gave_up IS NULL",
                        (time.time(), attempt))  # fmt: skip
        self.db.commit()

    def give_up(self, attempt: int) -> None:
        """``attempt`` given up now."""
        self.db.execute("UPDATE attempts SET gave_up = ? WHERE id = ? AND passed IS NULL AND gave_up IS NULL",
                        (time.time(), attempt))  # fmt: skip
        self.db.commit()

    def attempts(self) -> list[Attempt]:
        """Every attempt, oldest first."""
        return self._rows()

    def best(self, exercise: str) -> float | None:
        """The shortest time to pass ``exercise``, in seconds, or ``None``."""
        times = [a.seconds for a in self._rows("WHERE exercise = ? AND passed IS NOT NULL", (exercise,))]
        return min(times) if times else None

    def mastered(self, exercise: str, minutes: int) -> bool:
        """Passed at least once without a hint within its stated time."""
        rows = self._rows("WHERE exercise = ? AND passed IS NOT NULL AND hints = 0", (exercise,))
        return any(a.seconds <= minutes * 60 for a in rows)
