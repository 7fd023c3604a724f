"""``nbgrader zip_collect`` that cannot swap students: whose a file is comes from the name the LMS gave it.

An LMS download is a folder of files whose *names* the LMS wrote (``hw1_alice_attempt_2027-01-10-10-00-00_...``);
``zip_collect`` extracts each archive among them into a folder of its own, then asks a collector plugin whose each
extracted file is. nbgrader's own (``FileNameCollectorPlugin``) matches its regular expression against the file's
whole path, and its documented example starts with ``.*``: so a file *inside* alice's archive, named as bob's
newer attempt, is collected as bob's and replaces bob's work (the newest timestamp wins).

:class:`ArchiveCollector`, the course's collector (``nbgrader_config.py`` sets it through
:func:`autograder.preprocessors.pipeline.configure`):

* matches the regular expression against the *top-level* name only, the one the LMS gave: a file inside an archive
  belongs to whoever the archive's name says, and its own name only says which notebook it is;
* refuses a file inside an archive whose own name claims another student, naming the archive and the file;
* refuses two files that would be collected as the same notebook of the same student with nothing to order them
  (the same timestamp, or none), naming both; attempts with different timestamps are nbgrader's to order;
* refuses a student id that is not a plain name (:data:`STUDENT_ID`).

:data:`SAFE_REGEXP` is the default ``named_regexp``: anchored, no ``.*``, fields that cannot run into each other.
"""

from __future__ import annotations

import os
import re
from typing import Any

from nbgrader.plugins.zipcollect import FileNameCollectorPlugin

from ..inert import terminal_text

SAFE_REGEXP = (
    r"^[^_/]+_(?P<student_id>[A-Za-z0-9.@+-]+)_attempt_(?P<timestamp>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})"
    r"_(?P<file_id>[A-Za-z0-9_.-]+?)(?:\.ipynb)?$"
)
"""``<course>_<student>_attempt_<YYYY-MM-DD-hh-mm-ss>_<notebook>[.ipynb]`` (nbgrader's documented file names),
anchored at both ends; set ``c.FileNameCollectorPlugin.named_regexp`` for your LMS's names."""
STUDENT_ID = re.compile(r"[A-Za-z0-9_.@+-]{1,100}\Z")


class CollectionRefused(RuntimeError):
    """Two files would be collected as one student's notebook, or a file claims another student than its archive."""


class ArchiveCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector, with whose a file is taken from its top-level name (module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._seen: dict[tuple[str, str], tuple[str, str | None]] = {}

    def _extracted_root(self) -> str | None:
        app = self.parent
        try:
            return os.path.realpath(app._format_collect_path(app.extracted_directory))  # noqa: SLF001 - nbgrader's
        except Exception:  # not run by ZipCollectApp (a test, another app)
            return None

    def _refuse(self, message: str) -> None:
        message = terminal_text(message)  # it quotes file names from the archive: shown on the instructor's terminal
        self.log.error(message)
        raise CollectionRefused(message)

    def collect(self, submitted_file: str) -> dict | None:
        """Whose ``submitted_file`` is, or ``None`` to skip it (an extension not collected, a name that does not
        match).

        Raises:
            CollectionRefused: the file claims another student than the archive it came from; it would be collected
                as the same notebook as another file with nothing to order them; a student id that is not a plain
                name. The message names the files.
        """
        _, ext = os.path.splitext(submitted_file)
        if ext not in self.valid_ext:
            return None
        root = self._extracted_root()
        path = os.path.realpath(submitted_file)
        parts = os.path.relpath(path, root).split(os.sep) if root else [os.path.basename(path)]
        if parts[0] == os.pardir:
            self._refuse(f"{submitted_file} is outside the folder zip_collect extracted: not collected")
        info = self._match(parts[0])  # the LMS's own name: of the file itself, or of the archive it came from
        if not info:
            return None
        info = {k: v for k, v in info.items() if v is not None}
        student = str(info.get("student_id", ""))
        if not STUDENT_ID.match(student):
            self._refuse(f"{submitted_file}: the student id {student!r} is not a plain name: not collected")
        if len(parts) > 1:  # inside an archive: its own name says which notebook, never whose
            named = re.match(self.named_regexp, parts[-1])
            inner = named.groupdict() if named else None
            if inner and inner.get("student_id") not in (None, student):
                self._refuse(
                    f"{submitted_file} is inside the archive {parts[0]!r} of student {student!r} but its name claims "
                    f"student {inner.get('student_id')!r}: refusing to collect it as another student's work"
                )
            info["file_id"] = os.path.splitext(parts[-1])[0]
        key = (student, str(info.get("file_id", "")))
        earlier = self._seen.get(key)
        if earlier is not None and earlier[0] != path and earlier[1] == info.get("timestamp"):
            self._refuse(
                f"{earlier[0]} and {submitted_file} would both be collected as {key[1]!r} of student {student!r} "
                "with nothing to order them: remove one"
            )
        self._seen[key] = (path, info.get("timestamp"))
        return info
