"""bpe_lab.cputime: code is stopped by the CPU time it uses, even when it catches the first stop."""

import signal
import time

import pytest

from bpe_lab import cputime


class Stopped(BaseException):
    pass


def test_code_that_catches_the_first_stop_and_goes_on_is_stopped_at_the_next_tick():
    caught = 0
    with pytest.raises(Stopped), cputime.limited(0.2, 60, lambda kind, seconds: Stopped(kind, seconds)):
        while True:
            try:
                while True:
                    pass
            except Stopped:
                caught += 1
                if caught > 3:
                    raise
    assert caught == 4


def test_the_wall_clock_stops_code_that_sleeps_and_nothing_is_left_armed():
    with pytest.raises(Stopped, match="wall"), cputime.limited(5, 0.2, lambda kind, seconds: Stopped(kind)):
        time.sleep(60)
    time.sleep(0.3)  # no timer fires after the block


def test_a_tick_that_lands_while_the_block_is_left_does_nothing_and_nothing_is_left_armed(monkeypatch):
    # On a loaded machine the process can be descheduled for several ticks just as the block is left, after the stop
    # was raised and before the timer is disarmed: here the disarm itself takes 20 ticks. Such a tick once raised a
    # second stop from the exit, which skipped the disarm and left a timer raising in whatever code ran next.
    real = signal.setitimer
    previous = signal.getsignal(signal.SIGALRM)

    def slow_disarm(which, seconds, interval=0.0):
        if seconds == 0:
            deadline = time.monotonic() + 0.05
            while time.monotonic() < deadline:
                pass
        return real(which, seconds, interval)

    monkeypatch.setattr(signal, "setitimer", slow_disarm)
    armed = None
    try:
        with pytest.raises(Stopped), cputime.limited(0.01, 0, lambda kind, seconds: Stopped(kind)):
            while True:
                pass
    finally:
        armed = real(signal.ITIMER_REAL, 0)  # disarms, and says what was left
        handler = signal.signal(signal.SIGALRM, previous)
    assert armed == (0.0, 0.0)
    assert handler is previous


def test_a_stop_that_comes_as_the_timer_starts_leaves_nothing_armed(monkeypatch):
    # The process is descheduled (or collects its garbage) just as the timer starts, past the limit already: the
    # first tick is handled before __enter__ returns. Raised there, the block was never entered, its __exit__ never
    # ran, and the timer went on raising in whatever ran next (once in pytest's own report of a test).
    real = signal.setitimer
    previous = signal.getsignal(signal.SIGALRM)

    def late_start(which, seconds, interval=0.0):
        result = real(which, seconds, interval)
        if seconds > 0:
            tick = signal.getsignal(signal.SIGALRM)
            tick.__self__._start["cpu"] -= 10.0  # the CPU time spent while descheduled
            tick(signal.SIGALRM, None)  # and the tick handled as the start returns
        return result

    monkeypatch.setattr(signal, "setitimer", late_start)
    entered = False
    try:
        with pytest.raises(Stopped, match="cpu"), cputime.limited(0.5, 0, lambda kind, seconds: Stopped(kind)):
            entered = True
    finally:
        armed = real(signal.ITIMER_REAL, 0)
        handler = signal.signal(signal.SIGALRM, previous)
    assert not entered and armed == (0.0, 0.0) and handler is previous
