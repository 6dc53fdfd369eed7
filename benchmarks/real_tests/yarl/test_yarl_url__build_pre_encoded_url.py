# quest: yarl/_url.py::build_pre_encoded_url
from yarl import URL


def test_authority_is_kept_as_given():
    url = URL.build(scheme="http", authority="u:p@example.com:8080", path="/a%20b",
                    encoded=True)
    assert str(url) == "http://u:p@example.com:8080/a%20b"
    assert url.raw_authority == "u:p@example.com:8080"
    assert url.raw_path == "/a%20b" and url.path == "/a b"


def test_host_with_the_default_port_drops_the_port():
    url = URL.build(scheme="https", host="example.com", port=443, path="/", encoded=True)
    assert str(url) == "https://example.com/"
    assert url.explicit_port is None and url.port == 443


def test_host_with_another_port_keeps_it():
    url = URL.build(scheme="https", host="example.com", port=8443, encoded=True)
    assert str(url) == "https://example.com:8443"
    assert url.explicit_port == 8443


def test_host_without_a_port():
    url = URL.build(scheme="http", host="example.com", path="/x", encoded=True)
    assert str(url) == "http://example.com/x" and url.explicit_port is None


def test_user_and_password_go_into_the_netloc():
    url = URL.build(scheme="ftp", user="bob", password="s%40cret", host="h.org", port=21,
                    encoded=True)
    assert str(url) == "ftp://bob:s%40cret@h.org"
    assert url.raw_user == "bob" and url.raw_password == "s%40cret"
    only_user = URL.build(scheme="ftp", user="amy", host="h.org", port=2121, encoded=True)
    assert str(only_user) == "ftp://amy@h.org:2121"


def test_no_host_no_authority_gives_an_empty_netloc():
    url = URL.build(path="rel/path", query_string="a=1", fragment="top", encoded=True)
    assert str(url) == "rel/path?a=1#top"
    assert url.raw_host is None and url.is_absolute() is False
    assert url.raw_query_string == "a=1" and url.raw_fragment == "top"


def test_a_relative_path_that_looks_like_a_scheme_is_escaped():
    url = URL.build(path="mailto:bob", encoded=True)
    assert url.raw_path == "mailto%3Abob"
    assert url.scheme == "" and url.path == "mailto:bob"
    # with a scheme or a host the colon is harmless and stays
    assert URL.build(scheme="x", path="a:b", encoded=True).raw_path == "a:b"
    assert URL.build(host="h", path="/a:b", encoded=True).raw_path == "/a:b"
    # a colon after a character that cannot be in a scheme stays as well
    assert URL.build(path="a/b:c", encoded=True).raw_path == "a/b:c"


def test_each_build_is_a_fresh_usable_url():
    first = URL.build(scheme="http", host="a.com", path="/p", query_string="q=1",
                      encoded=True)
    assert first.query == {"q": "1"}
    assert first.with_path("/other") == URL("http://a.com/other")
    assert first == URL("http://a.com/p?q=1")
