"""The random pause before each wave of runs (pytest_quest.gaps) and the run dirs that no longer
tell a run its place (forkrun.RunDirs): what keeps the clock from carrying answers between runs."""

from __future__ import annotations

import pytest

from pytest_quest.gaps import Gaps


def _gaps(scale: float = 1.0) -> tuple[Gaps, list[float], list[tuple[float, float]]]:
    slept: list[float] = []
    asked: list[tuple[float, float]] = []

    def draw(low: float, high: float) -> float:
        asked.append((low, high))
        return high / 2

    return Gaps(scale, sleep=slept.append, draw=draw), slept, asked


def test_no_pause_before_anything_ran() -> None:
    gaps, slept, asked = _gaps()
    assert gaps.pause() == 0.0
    assert slept == [] and asked == [] and gaps.total == 0.0


def test_the_pause_spans_the_longest_test_code_of_the_wave_just_ended() -> None:
    gaps, slept, asked = _gaps()
    gaps.ended(False, 0.2)
    gaps.ended(False, 0.5)
    assert gaps.width() == 0.5
    assert gaps.pause() == 0.25
    assert asked == [(0.0, 0.5)] and slept == [0.25]
    # A mutant's wait widens only the pause right after its wave.
    assert gaps.width() == 0.0 and gaps.pause() == 0.0


def test_a_clean_runs_test_code_widens_every_later_pause() -> None:
    gaps, _, asked = _gaps()
    gaps.ended(True, 0.4)
    gaps.ended(False, 0.1)
    gaps.pause()
    gaps.ended(False, 0.1)  # a quick wave after it: the clean run's wait still counts
    gaps.pause()
    assert asked == [(0.0, 0.4), (0.0, 0.4)]
    assert gaps.total == pytest.approx(0.4)


def test_the_wider_of_the_clean_and_the_wave_decides() -> None:
    gaps, _, asked = _gaps()
    gaps.ended(True, 0.1)
    gaps.ended(False, 0.3)
    gaps.pause()
    assert asked == [(0.0, 0.3)]


def test_scale_and_a_clock_gone_backwards() -> None:
    gaps, _, asked = _gaps(scale=2.0)
    gaps.ended(True, -5.0)  # clamped: never a negative width
    assert gaps.width() == 0.0
    gaps.ended(False, 0.25)
    gaps.pause()
    assert asked == [(0.0, 0.5)]


def test_the_default_draw_is_the_systems_random_source_not_a_seed() -> None:
    """Seeding Python's generator (as the schedule does from the files) must not fix the
    pauses: an agent who can compute the seed could subtract them."""
    import random

    slept: list[float] = []
    first = Gaps(sleep=slept.append)
    second = Gaps(sleep=slept.append)
    for gaps in (first, second):
        random.seed(7)
        for _ in range(20):
            gaps.ended(True, 1.0)
            gaps.pause()
    assert all(0.0 <= s <= 1.0 for s in slept)
    assert slept[:20] != slept[20:]


class _Zygote:
    """Says when each run was reaped, as the real zygote does."""

    def __init__(self, reaped: dict[int, float]) -> None:
        self.reaped = reaped

    def wait_ended(self, pid: int, timeout: float = 10.0) -> float | None:
        return self.reaped.get(pid)


@pytest.mark.parametrize(("status", "clean", "counted"), [
    ("answered", True, True),
    ("answered", False, True),
    ("crashed", False, True),  # a run that ended itself at a moment it chose counts
    ("timeout", True, False),  # the judge cut it short: the moment was the judge's
])
def test_a_run_counts_from_its_test_code_to_its_reaping(status: str, clean: bool,
                                                        counted: bool) -> None:
    import time

    from pytest_quest import forkrun, mutate

    now = time.monotonic()
    runs = forkrun.ForkRuns(_Zygote({7: now + 30.0}), waves=True)  # type: ignore[arg-type]
    flight = forkrun._Flight(0, 7, -1, -1, started=now - 4.0, deadline=now + 100.0,
                             clean=clean)
    flight.began = now - 3.0  # its start record: test code began a second after the launch
    ending: list[int] = []
    results: list[mutate.Ran | None] = [None]
    runs._done(flight, mutate.Ran(status, 4.0), results, ending,
               forkrun._Schedule(None, None, None))
    assert ending == [7] and results[0] is not None
    runs._reaped(ending.pop())
    # Reaped 30 s from now: 33 s of its own, or (cut short) the 30 s after the judge's kill.
    assert runs.gaps.wave == pytest.approx(33.0 if counted else 30.0, abs=1.0)
    assert runs.gaps.clean == (runs.gaps.wave if clean else 0.0)


def test_the_judges_handling_of_an_answer_counts_as_the_runs_time() -> None:
    """Red team 26 padded its answer (32 MB, a key given twice) so that the judge's parse,
    after the reaping, moved the next wave by seconds while its test code took 0.1 s."""
    import time

    from pytest_quest import forkrun, mutate

    now = time.monotonic()
    runs = forkrun.ForkRuns(_Zygote({9: now - 5.0}), waves=True)  # type: ignore[arg-type]
    flight = forkrun._Flight(0, 9, -1, -1, started=now - 6.0, deadline=now + 100.0)
    flight.began = now - 5.5
    runs._done(flight, mutate.Ran("answered", 1.0), [None], [], forkrun._Schedule(
        None, lambda index, ran: time.sleep(0.2), None))
    runs._reaped(9)
    assert runs.gaps.wave >= 5.7  # not the 0.5 s from its test code to its reaping


def test_a_run_whose_reaping_never_came_counts_until_now() -> None:
    import time

    from pytest_quest import forkrun, mutate

    runs = forkrun.ForkRuns(_Zygote({}), waves=True)  # type: ignore[arg-type]
    flight = forkrun._Flight(0, 8, -1, -1, started=0.0, deadline=100.0)
    flight.began = time.monotonic() - 2.0
    runs._done(flight, mutate.Ran("answered", 2.0), [None], [], forkrun._Schedule(
        None, None, None))
    runs._reaped(8)
    assert 2.0 <= runs.gaps.wave < 60.0


def test_emptying_the_page_cache_comes_before_the_pause_and_widens_it() -> None:
    """A run can leave pages for the kernel to read ahead and end at once: the emptying then
    takes as long as it chose, so it happens before the pause and counts in its width."""
    import time

    from pytest_quest import forkrun

    order: list[str] = []

    class Zygote(_Zygote):
        def evict(self) -> None:
            order.append("evict")
            time.sleep(0.05)

    asked: list[float] = []

    def draw(low: float, high: float) -> float:
        order.append("pause")
        asked.append(high)
        return 0.0

    runs = forkrun.ForkRuns(Zygote({}), waves=True)  # type: ignore[arg-type]
    runs.gaps = Gaps(sleep=lambda _: None, draw=draw)
    runs._last_end = time.monotonic()  # the last run of the wave was just done with
    runs._between_waves()
    assert order == ["evict", "pause"] and asked[0] >= 0.05


def test_run_dirs_are_made_ahead_and_taken_in_no_telling_order(tmp_path) -> None:
    """Inode numbers of a tmpfs count up: a run dir made as its run was forked told the run
    how many came before it. Made ahead and taken at random, they do not."""
    import os

    from pytest_quest.forkrun import RUN_OUTPUT, RunDirs

    dirs = RunDirs(str(tmp_path))
    taken = [dirs.take() for _ in range(RunDirs.BATCH)]
    assert len(set(taken)) == RunDirs.BATCH and not dirs.free
    assert all(os.path.isfile(os.path.join(d, RUN_OUTPUT)) for d in taken)
    inodes = [os.stat(d).st_ino for d in taken]
    assert inodes != sorted(inodes)  # 1 chance in 64! of failing
    dirs.take()  # a second batch when the first is used up
    assert len(dirs.free) == RunDirs.BATCH - 1
    dirs.discard()
    assert len(os.listdir(tmp_path)) == RunDirs.BATCH + 1


def test_a_run_dir_carries_the_time_it_was_taken_not_its_batchs(tmp_path) -> None:
    import os
    import time

    from pytest_quest.forkrun import RUN_OUTPUT, RunDirs

    dirs = RunDirs(str(tmp_path))
    first = dirs.take()
    time.sleep(0.05)
    second = dirs.take()
    for path in (second, os.path.join(second, RUN_OUTPUT)):
        assert os.stat(path).st_ctime_ns - os.stat(first).st_ctime_ns >= 40_000_000
