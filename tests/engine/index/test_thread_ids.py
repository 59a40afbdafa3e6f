"""thread: takes a thread id with or without the angle brackets a Message-ID header writes
around it: the index keeps 'id@example.com', and thread:<id@example.com> (the form the
query-error hint suggests) found nothing."""
from __future__ import annotations

import re

import pytest
from mailfactory import ingested_project

from sasc_desktop.engine.errors import QueryError


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("threads"), [
        dict(message_id="<id@example.com>", subject="budget"),
        dict(message_id="<reply@example.com>", subject="Re: budget", body="lunch",
             extra="In-Reply-To: <id@example.com>\nReferences: <id@example.com>"),
        dict(message_id="<other@example.com>", subject="lunch", body="lunch")])
    yield s
    s.close()


def found(session, query):
    return sorted(h.doc_id for h in session.search(query, limit=100).hits)


THREAD = ["id@example.com", "reply@example.com"]


@pytest.mark.parametrize("query, expected", [
    ("thread:id@example.com", THREAD),                         # as the index keeps it
    ("thread:<id@example.com>", THREAD),                       # as a Message-ID header writes it
    ('thread:"<id@example.com>"', THREAD),
    ("Thread:<id@example.com>", THREAD),
    ("lunch thread:<id@example.com>", ["reply@example.com"]),
    ("lunch NOT thread:<id@example.com>", ["other@example.com"]),
    ("lunch -thread:<id@example.com>", ["other@example.com"]),
    ("thread:(<id@example.com> OR <other@example.com>)", sorted(THREAD + ["other@example.com"])),
    ("thread:<other@example.com> thread:id@example.com", sorted(THREAD + ["other@example.com"])),
    ("thread:<id@example.com", []),                            # not a bracketed id: as it is
])
def test_a_thread_id_with_or_without_angle_brackets(project, query, expected):
    assert found(project, query) == expected


def test_the_hints_example_finds_its_thread(project):
    """The hint after 'thread:' with nothing after it, typed as it is, is a query that works."""
    with pytest.raises(QueryError) as err:
        project.search("thread:")
    message = str(err.value)
    assert message == ("cannot understand the query 'thread:': 'thread:' is not followed by anything to search "
                       "for; write it right after the colon, e.g. thread:<id@example.com>")
    (example,) = re.findall(r"e\.g\. (\S+)$", message)
    assert found(project, example) == THREAD


def test_every_stored_thread_is_found_both_ways(project):
    rows = project.store.con.execute("SELECT doc_id, thread_id FROM messages").fetchall()
    for thread in {r["thread_id"] for r in rows}:
        expected = sorted(r["doc_id"] for r in rows if r["thread_id"] == thread)
        assert found(project, f"thread:{thread}") == found(project, f"thread:<{thread}>") == expected


# A thread id with colons in it (SpamAssassin's Message-IDs: 'PM200011:12:45 AM', kept as
# 'PM200011:12:45'), bare or in angle brackets, found nothing unless quoted: Whoosh read
# 'PM200011:' as a field. thread:<> is thread: followed by nothing (it searched for '<>').
@pytest.fixture(scope="module")
def colons(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("colons"), [
        dict(message_id="PM200011:12:45 AM", subject="offer", body="cheap"),
        dict(message_id="PM20008:14:54 AM", subject="offer", body="cheap too"),
        dict(message_id="<plain@example.com>", subject="offer", body="dear")])
    yield s
    s.close()


@pytest.mark.parametrize("query, expected", [
    ('thread:"PM200011:12:45"', ["PM200011:12:45"]),
    ("thread:PM200011:12:45", ["PM200011:12:45"]),
    ("thread:<PM200011:12:45>", ["PM200011:12:45"]),
    ("Thread:<PM200011:12:45>", ["PM200011:12:45"]),
    ('thread:"<PM200011:12:45>"', ["PM200011:12:45"]),
    ("(thread:<PM200011:12:45>)", ["PM200011:12:45"]),
    ("offer thread:PM200011:12:45", ["PM200011:12:45"]),
    ("offer NOT thread:<PM200011:12:45>", ["PM20008:14:54", "plain@example.com"]),
    ("offer -thread:PM200011:12:45", ["PM20008:14:54", "plain@example.com"]),
    ("thread:<PM200011:12:45> OR thread:PM20008:14:54", ["PM200011:12:45", "PM20008:14:54"]),
    ("thread:<PM200011:12:45> thread:<plain@example.com>", ["PM200011:12:45", "plain@example.com"]),
    ("thread:PM200011:12", []),
])
def test_a_thread_id_with_colons(colons, query, expected):
    assert found(colons, query) == expected


def test_every_thread_with_colons_is_found_each_way(colons):
    for thread in ("PM200011:12:45", "PM20008:14:54"):
        for query in (f"thread:{thread}", f"thread:<{thread}>", f'thread:"{thread}"'):
            assert found(colons, query) == [thread], query


@pytest.mark.parametrize("query, name", [("thread:<>", "thread"), ("Thread:<>", "Thread"),
                                         ("budget thread:<>", "thread"), ("(thread:<>)", "thread")])
def test_empty_angle_brackets_are_nothing_after_thread(project, query, name):
    with pytest.raises(QueryError) as err:
        project.search(query)
    assert str(err.value) == (f"cannot understand the query {query!r}: '{name}:' is not followed by anything to "
                              "search for; write it right after the colon, e.g. thread:<id@example.com>")
