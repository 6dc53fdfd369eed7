# quest: yarl/_url.py::URL.with_suffix
# unreachable: 1491 with a host, a non-empty raw_name needs two or more raw_parts
# (an empty name raises at line 1482 first)
import pytest
from yarl import URL


def test_replaces_the_suffix_of_the_last_segment():
    assert URL("http://h/a/b.txt").with_suffix(".md") == URL("http://h/a/b.md")
    assert URL("http://h/a/b.tar.gz").with_suffix(".zip") == URL("http://h/a/b.tar.zip")


def test_adds_a_suffix_where_there_is_none_and_removes_with_empty():
    assert str(URL("http://h/a/b").with_suffix(".py")) == "http://h/a/b.py"
    assert str(URL("http://h/a/b.py").with_suffix("")) == "http://h/a/b"


def test_query_and_fragment_are_dropped_unless_kept():
    url = URL("http://h/a/b.txt?x=1#frag")
    assert str(url.with_suffix(".md")) == "http://h/a/b.md"
    assert str(url.with_suffix(".md", keep_query=True)) == "http://h/a/b.md?x=1"
    assert str(url.with_suffix(".md", keep_fragment=True)) == "http://h/a/b.md#frag"
    assert str(url.with_suffix(".md", keep_query=True, keep_fragment=True)) == (
        "http://h/a/b.md?x=1#frag")


def test_the_suffix_is_percent_encoded():
    url = URL("http://h/file.txt").with_suffix(".t x")
    assert url.raw_path == "/file.t%20x" and url.path == "/file.t x"


def test_one_segment_under_the_host():
    assert str(URL("http://h/file").with_suffix(".txt")) == "http://h/file.txt"


def test_relative_and_absolute_paths_without_a_host():
    assert str(URL("dir/file.txt").with_suffix(".md")) == "dir/file.md"
    assert str(URL("/dir/file.txt").with_suffix(".md")) == "/dir/file.md"
    assert str(URL("file").with_suffix(".md")) == "file.md"


def test_invalid_suffixes_are_refused():
    url = URL("http://h/file.txt")
    with pytest.raises(TypeError, match="Invalid suffix type"):
        url.with_suffix(3)
    for bad in ("md", ".", ".a/b"):
        with pytest.raises(ValueError, match="Invalid suffix"):
            url.with_suffix(bad)


def test_a_url_without_a_name_is_refused():
    with pytest.raises(ValueError, match="empty name"):
        URL("http://h/").with_suffix(".txt")
    with pytest.raises(ValueError, match="empty name"):
        URL("http://h/dir/").with_suffix(".txt")


def test_dot_names_are_refused():
    # a name made only of the old suffix's stem dots would become "." or ".."
    with pytest.raises(ValueError, match="forbidden"):
        URL("http://h/..txt").with_suffix("")
