"""generator.core.ids: the checks every link and file name goes through."""

from __future__ import annotations

import pytest

from generator.core import ids


@pytest.mark.parametrize("text, expected", [
    ("2401.01234", ("2401.01234", None)),
    ("2401.01234v2", ("2401.01234", 2)),
    ("2104.12250v12", ("2104.12250", 12)),
    ("0704.0001", ("0704.0001", None)),           # the first new-style id: four digits until 2014
    ("1412.9999", ("1412.9999", None)),
    ("1501.00001", ("1501.00001", None)),          # five digits since 2015
    ("hep-th/9901001", ("hep-th/9901001", None)),  # old style: archive/YYMMNNN
    ("hep-th/9901001v3", ("hep-th/9901001", 3)),
    ("math.AG/0601001", ("math.AG/0601001", None)),  # old style with subject class
    ("cond-mat/0102536", ("cond-mat/0102536", None)),
    ("cs/0101001", ("cs/0101001", None)),
    ("arXiv:2401.01234v2", ("2401.01234", 2)),
    ("ARXIV:2401.01234", ("2401.01234", None)),
    ("https://arxiv.org/abs/2401.01234v2", ("2401.01234", 2)),
    ("http://export.arxiv.org/abs/hep-th/9901001v3", ("hep-th/9901001", 3)),
    ("https://www.arxiv.org/abs/2401.01234", ("2401.01234", None)),
    ("https://arxiv.org/pdf/2401.01234v1", ("2401.01234", 1)),
    ("  2401.01234\n", ("2401.01234", None)),
])
def test_parse_arxiv_id_valid(text: str, expected: tuple[str, int | None]) -> None:
    assert ids.parse_arxiv_id(text) == expected


@pytest.mark.parametrize("text", [
    "", "2401", "2401.", "2401.123", "2401.123456", "240101234", "2401.01234v0", "2401.01234v", "2401.01234vv2",
    "2401.01234 v2", "v2", "2401,01234", "1234.5678.9", "hep-th/990100", "hep-th/99010011", "HEP-TH/9901001",
    "math.ag/0601001", "hep-th9901001", "/9901001", "2401.01234/../etc", "javascript:alert(1)",
    "https://evil.example/abs/2401.01234", "arxiv.org/abs/2401.01234x",
])
def test_parse_arxiv_id_garbage(text: str) -> None:
    assert ids.parse_arxiv_id(text) is None


@pytest.mark.parametrize("text", ["2413.01234", "2400.01234", "0704.00001", "2401.1234"])
def test_parse_arxiv_id_rejects_impossible_new_style(text: str) -> None:
    assert ids.parse_arxiv_id(text) is None


@pytest.mark.parametrize("text", ["\uff12\uff14\uff10\uff11.\uff10\uff11\uff12\uff13\uff14",
                                  "\u0662\u0664\u0660\u0661.01234", "hep-th/\u0669901001"])
def test_parse_arxiv_id_rejects_non_ascii_digits(text: str) -> None:
    assert ids.parse_arxiv_id(text) is None


@pytest.mark.parametrize("text, expected", [
    ("10.1145/3299869.3319893", "10.1145/3299869.3319893"),
    ("https://doi.org/10.1145/3299869.3319893", "10.1145/3299869.3319893"),
    ("http://dx.doi.org/10.1000/xyz", "10.1000/xyz"),
    ("doi:10.1000/xyz", "10.1000/xyz"),
    ("DOI:10.1000/ABC", "10.1000/ABC"),
    (" 10.48550/arXiv.2401.01234 ", "10.48550/arXiv.2401.01234"),
    ("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O", None),  # <> are refused
])
def test_normalize_doi(text: str, expected: str | None) -> None:
    assert ids.normalize_doi(text) == expected


@pytest.mark.parametrize("text", ["", "10.1/x", "11.1234/x", "10.1234/", "10.1234/a b", '10.1234/"><script>',
                                  "javascript:alert(1)", "10.1234", "doi.org/10.1234/x"])
def test_normalize_doi_garbage(text: str) -> None:
    assert ids.normalize_doi(text) is None


def test_doi_url_quotes_what_must_be_quoted() -> None:
    assert ids.doi_url("10.1000/a#b?c") == "https://doi.org/10.1000/a%23b%3Fc"
    assert ids.doi_url("10.1000/x(1):2;3") == "https://doi.org/10.1000/x(1):2;3"


@pytest.mark.parametrize("url", [
    "https://example.org/x?y=1#z", "http://example.org", "HTTPS://EXAMPLE.ORG/", "https://user.github.io/repo/",
    "http://[::1]:8000/", "https://example.org/a%20b",
])
def test_safe_url_accepts_http_urls(url: str) -> None:
    assert ids.safe_url(url) == url


def test_safe_url_strips_outer_whitespace() -> None:
    assert ids.safe_url("  https://example.org/ \n") == "https://example.org/"


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
    "jav\nascript:alert(1)", "javascript://example.org/%0Aalert(1)", "vbscript:msgbox(1)",
    "data:text/html,<script>alert(1)</script>", "data:text/html;base64,PHNjcmlwdD4=", "//evil.example/x",
    "\\\\evil.example/x", "/relative/path", "relative", "https://", "https:evil.example", "https:///x",
    "http://exa mple.com", "https://example.org/a b", "https://example.org/\"onmouseover=alert(1)",
    "https://example.org/'x", "https://example.org/<script>", "https://example.org/`x`",
    "https://example.org/\\x", "https://example.org/\x00", "https://example.org/\x1b[31m",
    "ftp://example.org/", "file:///etc/passwd", "mailto:a@example.org", "", "   ",
])
def test_safe_url_rejects(url: str) -> None:
    assert ids.safe_url(url) is None


@pytest.mark.parametrize("text, ok", [
    ("jane-doe", True), ("a", True), ("a1", True), ("bin-cui", True), ("x" * 64, True),
    ("x" * 65, False), ("Jane", False), ("a_b", False), ("-a", False), ("a-", False), ("", False),
    ("a/b", False), ("..", False), (".", False), ("a b", False), ("a.b", False), ("café", False),
    ("a\tb", False), ("\na", False),
])
def test_is_slug(text: str, ok: bool) -> None:
    assert ids.is_slug(text) is ok


@pytest.mark.parametrize("text", ["a\n", "jane-doe\n"])
def test_is_slug_rejects_trailing_newline(text: str) -> None:
    assert ids.is_slug(text) is False


def test_links_from_ids() -> None:
    assert ids.abs_url("2401.01234") == "https://arxiv.org/abs/2401.01234"
    assert ids.pdf_url("hep-th/9901001") == "https://arxiv.org/pdf/hep-th/9901001"
    url = ids.title_search_url('A & B: "$x$" #1?')
    assert url.startswith("https://arxiv.org/search/?searchtype=title&query=")
    query = url.split("query=", 1)[1]
    assert not set(query) & set(' &"#?<>'), query
