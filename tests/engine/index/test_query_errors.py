"""Query mistakes are QueryErrors (a SascError) that quote what the user typed and say how to write
it, never Whoosh's own errors and never a silent search for something else; a phrase in a field
without word positions (from, to, all) is all of its words in that field. A real project, real
mail, a real Whoosh index."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from mailfactory import ingested_project, module_project

from sasc_desktop.engine.errors import QueryError, SascError
from sasc_desktop.engine.records import SearchResult

MAILS = [
    dict(message_id="<pn1@x>", subject="Budget review", body="The budget is late.",
         frm="Patricia Nolan <patricia.nolan@corp.com>", to="Nate Sullivan <nate.sullivan@corp.com>",
         date="Mon, 05 Feb 2001 10:00:00 +0000"),
    dict(message_id="<pn2@x>", subject="Lunch", body="Lunch on Friday?",
         frm="Patricia Nolan <patricia.nolan@corp.com>", to="john.nolan@corp.com",
         date="Thu, 15 Mar 2001 12:00:00 +0000"),
    dict(message_id="<ps@x>", subject="Budget draft", body="A draft of the budget.",
         frm="Patricia Smith <patricia.smith@corp.com>", to="nate.sullivan@corp.com",
         date="Sun, 01 Apr 2001 09:00:00 +0000"),
    dict(message_id="<jn@x>", subject="Weekend", body="Budget meeting at the weekend.",
         frm="John Nolan <john.nolan@corp.com>", to="Nate Jones <nate.jones@corp.com>",
         date="Mon, 15 Jan 2001 08:00:00 +0000"),
]


project = module_project(MAILS)


def ids(session, query):
    return sorted(h.doc_id for h in session.search(query, limit=50).hits)


@pytest.mark.parametrize("query, expected", [
    # the reviewer's: Whoosh raised its own QueryError ("Phrase search: 'from' field has no positions")
    ('from:"Patricia Nolan"', ["pn1@x", "pn2@x"]),            # not Patricia Smith, not John Nolan
    ('from:"patricia nolan"', ["pn1@x", "pn2@x"]),
    ('to:"Nate Sullivan"', ["pn1@x", "ps@x"]),                  # not Nate Jones
    ('budget from:"Patricia Nolan"', ["pn1@x"]),                # a filter: it restricts the words
    ('budget NOT from:"Patricia Nolan"', ["jn@x", "ps@x"]),
    ('from:"Patricia Nolan" OR from:"John Nolan"', ["jn@x", "pn1@x", "pn2@x"]),
    ('all:"budget meeting"', ["jn@x"]),
    ('from:"patricia.nolan@corp.com"', ["pn1@x", "pn2@x"]),    # one word: a term, as before
    ('"budget meeting"', ["jn@x"]),                             # phrases where there are positions
    ('subject:"budget review"', ["pn1@x"]),
    ("From:nolan", ["jn@x", "pn1@x", "pn2@x"]),                 # a field name in capitals
    ("SUBJECT:lunch", ["pn2@x"]),
    ('"re:lunch"', []),                                         # quoted: a phrase, not a field
    ("subject:(budget draft)", ["pn1@x", "ps@x"]),
    ("(budget OR lunch) AND friday", ["pn2@x"]),
    ("date:2001-03", ["pn2@x"]),
    ("budget ANDNOT draft", ["jn@x", "pn1@x"]),                 # (ANDNOT and ANDMAYBE raised a TypeError)
    ("budget ANDMAYBE draft", ["jn@x", "pn1@x", "ps@x"]),
    ("budget -draft", ["jn@x", "pn1@x"]),                      # -word leaves it out (was: OR draft)
    ('budget -from:"Patricia Nolan"', ["jn@x", "ps@x"]),
    ("-budget", ["pn2@x"]),
    ("lunch -", ["pn2@x"]),                                     # a lone "-": punctuation
    ("date:2001 -budget", ["pn2@x"]),                           # a NOT restricts a filter alone too
    ("date:2001 NOT budget", ["pn2@x"]),                        # (was: in 2001 OR not about budget)
    ("from:nolan OR date:2001-04", ["jn@x", "pn1@x", "pn2@x", "ps@x"]),  # filters alone stay OR-ed
])
def test_queries_that_work(project, query, expected):
    assert ids(project, query) == expected


HINT = ("write a date as 2001, 2001-03 or 2001-03-05, or a range as date:[2001-01 to 2001-06], "
        "date:>2001-03 or date:<2002")


@pytest.mark.parametrize("query, message", [
    # the reviewer's: searched for the word "subject"
    ("subject:(", 'a "(" is not closed; close the group with ")", e.g. subject:(budget meeting)'),
    ("subject:(budget", 'a "(" is not closed; close the group with ")", e.g. subject:(budget meeting)'),
    # a field inside a date group: was searched as the word "date" (8 hits for 21)
    ("date:(2001-03 to:jeff)", "'to:jeff' is inside a date group; only dates go between date:( and ), e.g. "
                               "date:(2001-03 2001-05) to:jeff"),
    ("date:(2001 -from:ann)", "'from:ann' is inside a date group; only dates go between date:( and ), e.g. "
                              "date:(2001-03 2001-05) from:ann"),
    ("date:(2001-03", 'a "(" is not closed; close the group with ")", e.g. date:(2001-03 2001-05)'),
    ("budget from:(ann", 'a "(" is not closed; close the group with ")", e.g. from:(ann bob)'),
    ("((budget", 'a "(" is not closed; close the group with ")", e.g. (budget OR lunch) AND meeting'),
    ("budget)", 'a ")" has no "(" before it; remove it, or add the "(" where the group starts'),
    # the reviewer's: body: searched for the word "body" while from: was an error
    ("body:", "'body:' is not followed by anything to search for; write it right after the colon, e.g. body:budget"),
    ("from:", "'from:' is not followed by anything to search for; write it right after the colon, e.g. from:fossum"),
    ("subject: budget", "'subject:' is not followed by anything to search for; write it right after the colon, "
                        "e.g. subject:budget"),
    ("budget (date:)", "'date:' is not followed by anything to search for; write it right after the colon, "
                       "e.g. date:2001-03"),
    ('"budget meeting', """a '"' is not closed; put a phrase between two quotes, e.g. "budget meeting\""""),
    ('subject:"', """a '"' is not closed; put a phrase between two quotes, e.g. "budget meeting\""""),
    # the reviewer's: the message quoted the rewritten 'date:200113'
    ("date:2001-13", f"'2001-13' is not a date; {HINT}"),
    ("budget date:banana", f"'banana' is not a date; {HINT}"),
    ("date:[2001-13 to 2002]", f"'date:[2001-13 to 2002]' is not a date (month must be in 1..12); {HINT}"),
    ("date:[2019-10-01 to nope]", f"'date:[2019-10-01 to nope]' is not a date; {HINT}"),   # (no int() internals)
    ("budget AND", "AND needs something to search for on both sides, e.g. budget AND meeting"),
    ("OR budget", "OR needs something to search for on both sides, e.g. budget OR meeting"),
    ("(budget AND) lunch", "AND needs something to search for on both sides, e.g. budget AND meeting"),
    ("budget NOT", "NOT needs something to search for after it, e.g. budget NOT draft"),
])
def test_query_mistakes_quote_the_query_and_say_how(project, query, message):
    with pytest.raises(QueryError) as err:
        project.search(query)
    assert str(err.value) == f"cannot understand the query {query!r}: {message}"


def test_unknown_fields_and_empty_queries(project):
    with pytest.raises(QueryError) as err:
        project.search("nosuchfield:x")
    assert str(err.value) == ("unknown field 'nosuchfield' in the query 'nosuchfield:x'; fields are: "
                              "all, attachments, body, date, folder, from, subject, thread, to")
    with pytest.raises(QueryError, match=r"^the query 'the' has no searchable words"):
        project.search("the")
    assert ids(project, "Re: lunch") == ["pn2@x"]   # a colon after a word that is no field: words


# --- any text: results or a SascError, never another exception --------------------------------
PIECES = ["subject:", "body:", "from:", "to:", "all:", "date:", "thread:", "folder:", "attachments:", "Subject:",
          "nosuch:", "re:", '"', "'", "(", ")", "[", "]", "{", "}", "<", ">", "=", "*", "?", "^", "~", "-", "+",
          ":", "\\", "/", "AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "TO", "to", "budget", "lunch", "Patricia Nolan",
          "nolan", "2001", "2001-03", "2001-13", "2001-03-05", "[2001 to 2002]", ">2001-03", "<=2001", "the",
          "corp.com", "a@b.c", "é", "日本", " ", " ", "  ", "\t", "0", "^2", "x" * 41]
queries = st.one_of(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map(" ".join),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30),
    st.text(alphabet='subjectfromdate:"()[]{}<>*?^~ -+ANDORNOT0123', min_size=1, max_size=30),
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries)
def test_any_query_gives_results_or_a_sasc_error(project, query):
    try:
        result = project.search(query, limit=5)
    except SascError as exc:
        assert str(exc)
    else:
        assert isinstance(result, SearchResult) and result.total >= len(result.hits)


# --- words longer than the index keeps --------------------------------------------------------
SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"   # 64 characters
W40, W41 = "x" * 39 + "a", "x" * 40 + "b"


@pytest.fixture(scope="module")
def long_words(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("long"), [
        dict(message_id="<lw1@x>", subject="Checksum", body=f"The file's SHA-256 is {SHA}; also {W40} and {W41}."),
        dict(message_id=f"<{SHA}@x>", subject="Budget", body="The budget.", frm=f"{SHA[:50]}@corp.com")])
    yield s
    s.close()


@pytest.mark.parametrize("query", [SHA, f"budget {SHA}", f"{SHA} budget", f'"SHA-256 is {SHA}"', f"subject:{SHA}",
                                   f"all:{SHA}", f"budget NOT {SHA}", f"budget -{SHA}", f"{SHA[:45]}*", W41,
                                   f"(budget OR {SHA}) AND checksum"])
def test_a_word_longer_than_40_characters_is_an_error_saying_so(long_words, query):
    with pytest.raises(QueryError) as err:
        long_words.search(query)
    shown = f"{(SHA if SHA[:20] in query else W41)[:20]}\u2026"
    assert str(err.value) == (f"cannot search for {shown!r} in the query {query!r}: words longer than 40 "
                              "characters are not indexed, so no message can match one; leave it out of the query")


def test_words_up_to_40_characters_and_long_values_of_filters_are_searched(long_words):
    assert ids(long_words, W40) == ["lw1@x"]
    assert ids(long_words, f"{W40[:30]}*") == ["lw1@x"]
    assert ids(long_words, f"thread:{SHA}@x") == [f"{SHA}@x"]           # a message id: no word limit
    assert ids(long_words, f"from:{SHA[:50]}@corp.com") == [f"{SHA}@x"]    # an address: no word limit
    assert ids(long_words, f"budget from:{SHA[:50]}@corp.com") == [f"{SHA}@x"]
