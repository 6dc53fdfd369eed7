# quest: src/click/_termui_impl.py::ProgressBar.format_bar
import io
import math

from click._termui_impl import ProgressBar


def endless():
    """An iterable with no length: the bar cannot know how far it got."""
    yield from ()


def bar(**kwargs):
    iterable = None if "length" in kwargs else endless()
    return ProgressBar(iterable, file=io.StringIO(), **kwargs)


def test_a_known_length_fills_in_proportion():
    progress = bar(length=10, width=10)
    assert progress.format_bar() == " " * 10
    progress.pos = 3
    assert progress.format_bar() == "###       "
    progress.pos = 10
    assert progress.format_bar() == "#" * 10


def test_fill_and_empty_characters():
    progress = bar(length=4, width=8, fill_char="=", empty_char=".")
    progress.pos = 1
    assert progress.format_bar() == "==......"


def test_a_finished_bar_of_unknown_length_is_full():
    progress = bar(width=5)
    progress.finished = True
    assert progress.format_bar() == "#####"


def test_an_unknown_length_without_timing_shows_an_empty_bar():
    progress = bar(width=6)
    assert progress.length is None
    assert progress.avg == [] and progress.format_bar() == "      "


def test_an_unknown_length_with_timing_shows_one_bouncing_mark():
    progress = bar(width=10)
    progress.avg = [1.0]  # one second per item: the mark moves with cos(pos)
    progress.pos = math.pi / 2  # cos = 0: the middle
    assert progress.format_bar() == "     #    "
    progress.pos = math.pi  # cos = -1: the start
    assert progress.format_bar() == "#         "


def test_a_zero_width_unknown_length_bar_still_has_one_cell():
    progress = bar(width=0)
    assert progress.format_bar() == " "
