"""bpe_lab.cputime: code is stopped by the CPU time it uses, even when it catches the first stop."""

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
