"""autograder.isolation.limits' CPU accounting: what the time limits on student code count."""

import subprocess
import sys

import pytest

from autograder.isolation.limits import Cgroup, CpuMeter, joined_command, tree_cpu_seconds

BURN = """
import subprocess, sys, threading, time
def burn(seconds):
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass
threads = [threading.Thread(target=burn, args=(0.3,)) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
child = "import time\\nstart = time.process_time()\\nwhile time.process_time() - start < 0.4:\\n    pass"
subprocess.run([sys.executable, "-c", child])
print("done", flush=True)
sys.stdin.read()  # waits, using no CPU, until the test has read its tree
"""
"""0.6 s of CPU time in two threads, 0.4 s in a child process that ends, then waits."""


def _burnt(command):
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "done\n"
    return process


def test_a_process_tree_counts_its_threads_and_the_children_it_reaped():
    process = _burnt([sys.executable, "-c", BURN])
    try:
        assert tree_cpu_seconds(process.pid) >= 0.6 + 0.4 - 0.05  # clock ticks of 10 ms, a few lost
    finally:
        process.communicate("")
    assert tree_cpu_seconds(process.pid) is None  # gone


def test_the_meter_keeps_what_an_earlier_root_used():
    first = _burnt([sys.executable, "-c", BURN])
    roots = [first.pid]
    meter = CpuMeter(lambda: None, lambda: roots[-1])
    before = meter.seconds()
    first.communicate("")
    second = _burnt([sys.executable, "-c", BURN])
    roots.append(second.pid)
    try:
        assert meter.seconds() >= before + 0.6 + 0.4 - 0.05
    finally:
        second.communicate("")


GROUP = Cgroup.create(2**30, 64)
ACCOUNTED = GROUP is not None and GROUP.cpu_seconds() is not None
if GROUP is not None:
    GROUP.close()


@pytest.mark.skipif(not ACCOUNTED, reason="no writable cgroup with CPU accounting on this machine")
def test_a_cgroup_counts_every_process_that_ran_in_it():
    group = Cgroup.create(2**30, 64)
    try:
        process = _burnt(joined_command([sys.executable, "-c", BURN], group))
        process.communicate("")
        assert group.cpu_seconds() >= 0.6 + 0.4 - 0.05
        assert CpuMeter(lambda: group, lambda: None).seconds() == group.cpu_seconds()  # the cgroup comes first
    finally:
        group.close()


def test_the_join_writes_its_pid_to_each_group_then_becomes_the_command_or_runs_nothing(tmp_path):
    """joined_command's prefix (a /bin/sh script): the command runs as the process that joined, with its arguments
    as given; where a group cannot be joined, the command never runs."""
    first, second = tmp_path / "a b" / "cgroup.procs", tmp_path / "c" / "cgroup.procs"
    first.parent.mkdir()
    second.parent.mkdir()
    group = Cgroup([str(first.parent), str(second.parent)], [str(first), str(second)])
    shown = [sys.executable, "-c", "import os, sys; print(os.getpid(), sys.argv[1:])", "--", "x y", "-n"]
    done = subprocess.run(joined_command(shown, group), capture_output=True, text=True, check=True)
    pid, argv = done.stdout.split(" ", 1)
    assert first.read_text().strip() == second.read_text().strip() == pid
    assert argv.strip() == "['--', 'x y', '-n']"
    marker = tmp_path / "ran"
    unjoinable = Cgroup([str(tmp_path)], [str(first), str(tmp_path / "missing" / "cgroup.procs")])
    failed = subprocess.run(joined_command(["touch", str(marker)], unjoinable), capture_output=True, text=True)
    assert failed.returncode == 126 and not marker.exists()
    with pytest.raises(ValueError, match="no command"):
        joined_command([], group)
