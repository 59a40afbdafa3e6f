"""A web or mail address typed without quotes (http://, https://, ftp://, mailto:x@y) is searched
as the phrase it is when quoted: it failed "unknown field 'http'". Quoted text is left as it is;
what is still read as an unknown http:/mailto: field says to quote a web address. A real
project, real mail, a real Whoosh index."""
from __future__ import annotations

import pytest
from mailfactory import found, module_project

from sasc_desktop.engine.errors import QueryError

LATIMES = "http://www.latimes.com/news/state/20000229/t000019596.html"
LATIMES_OTHER = "http://www.latimes.com/news/state/20000301/t000020001.html"
MAILS = [
    dict(message_id="<la@x>", subject="Power story", body=f"See {LATIMES} for the power story."),
    dict(message_id="<la2@x>", subject="Another story", body=f"And {LATIMES_OTHER} too, on gas."),
    dict(message_id="<words@x>", subject="Power news", body="www latimes com news state html power"),
    dict(message_id="<s@x>", subject="Secure", body="Log in at https://secure.example.org/login?user=ann&x=1 now."),
    dict(message_id="<f@x>", subject="Files", body="The files are at ftp://ftp.example.org/pub/data.zip today."),
    dict(message_id="<m@x>", subject="Write", body="Write to mailto:ann.lee@corp.com please."),
    dict(message_id="<none@x>", subject="Nothing", body="power and gas, no address here"),
]


project = module_project(MAILS)


@pytest.mark.parametrize("url, doc", [
    (LATIMES, "la@x"), (LATIMES_OTHER, "la2@x"), ("https://secure.example.org/login?user=ann&x=1", "s@x"),
    ("ftp://ftp.example.org/pub/data.zip", "f@x"), ("mailto:ann.lee@corp.com", "m@x"),
    ("HTTP://" + LATIMES[len("http://"):], "la@x")])
def test_a_bare_address_finds_what_the_quoted_one_does(project, url, doc):
    assert found(project, f'"{url}"') == {doc}
    assert found(project, url) == {doc}


@pytest.mark.parametrize("query, ids", [
    (f"({LATIMES})", {"la@x"}),
    (f"body:{LATIMES}", {"la@x"}),
    (f"power {LATIMES}", {"la@x", "words@x", "none@x"}),
    (f"power NOT {LATIMES}", {"words@x", "none@x"}),
    (f"power -{LATIMES}", {"words@x", "none@x"}),
    (f"{LATIMES} OR {LATIMES_OTHER}", {"la@x", "la2@x"}),
    (f"({LATIMES} OR {LATIMES_OTHER}) AND gas", {"la2@x"}),
    (f'"see {LATIMES}"', {"la@x"}),                      # inside quotes: as typed
])
def test_an_address_beside_the_rest_of_a_query(project, query, ids):
    assert found(project, query) == ids


@pytest.mark.parametrize("query", ["mailto:ann", "http://", "http:/www.latimes.com"])
def test_what_is_not_an_address_says_to_quote_one(project, query):
    with pytest.raises(QueryError) as e:
        project.search(query)
    assert "unknown field" in str(e.value) and "put it in quotes" in str(e.value)
    assert repr(query) in str(e.value)


def test_errors_quote_the_query_as_typed(project):
    with pytest.raises(QueryError) as e:
        project.search(f"{LATIMES} (budget")
    assert f"the query '{LATIMES} (budget'" in str(e.value)


# A date: value is read as a date, never as an address: date:http://x is not a date, an error (the
# address was quoted and searched as a phrase in 'date', silently nothing); a quoted date value
# that is not a date is an error too (date:"foo" failed as a damaged index, date:"http://x" was 0).
@pytest.mark.parametrize("query, value", [
    ("date:http://x", "http://x"), ("date:mailto:x@y", "mailto:x@y"), ("Date:https://x.org/a", "https://x.org/a"),
    ("power date:http://x", "http://x"), ("(power date:ftp://x/y)", "ftp://x/y"), ("-date:http://x", "http://x"),
    ("NOT date:mailto:x@y", "mailto:x@y"), ('date:"http://x"', "http://x"), ('date:"foo"', "foo"),
    ('power date:"foo"', "foo"), ('date:(2001 "foo")', "foo")])
def test_an_address_after_date_is_not_a_date(project, query, value):
    with pytest.raises(QueryError) as e:
        project.search(query)
    assert f"{value!r} is not a date" in str(e.value)
    assert repr(query) in str(e.value)


def test_a_quoted_date_that_is_one_is_still_a_date(project):
    assert found(project, 'date:"2001"') == found(project, "date:2001") == {m["message_id"][1:-1] for m in MAILS}


# An address with a bracketed part (Wikipedia's .../Enron_(company)) is one address: it stopped at
# the "(" and the rest was a group of its own ("company": every message with that word).
WIKI = "https://en.wikipedia.org/wiki/Enron_(company)"
WIKI_MAILS = [
    dict(message_id="<w@x>", subject="History", body=f"Read {WIKI} on the power trade."),
    dict(message_id="<c@x>", subject="Company", body="The company news, on power."),
    dict(message_id="<a@x>", subject="Address", body="Read https://x.org/a today."),
    dict(message_id="<n@x>", subject="Nothing", body="gas only"),
]


wiki = module_project(WIKI_MAILS)


@pytest.mark.parametrize("query, ids", [
    (WIKI, {"w@x"}), (f'"{WIKI}"', {"w@x"}), (f"({WIKI})", {"w@x"}), (f"body:{WIKI}", {"w@x"}),
    (f"gas OR {WIKI}", {"w@x", "n@x"}), (f"(gas OR {WIKI})", {"w@x", "n@x"}),
    (f"power NOT {WIKI}", {"c@x"}), ("https://x.org/a_(b)_(c)", set()),
    # a ")" with no "(" in the address closes the group around it
    ("(power https://x.org/a)", {"w@x", "c@x", "a@x"}), ('(power "https://x.org/a")', {"w@x", "c@x", "a@x"}),
    ("(gas OR https://x.org/a) AND read", {"a@x"}), (f"(gas OR {WIKI}) AND read", {"w@x"}),
])
def test_a_bracketed_part_belongs_to_the_address(wiki, query, ids):
    assert found(wiki, query) == ids
