"""Prefix and wildcard queries highlight the words they match: their terms are the indexed
terms the pattern expands to (the first 1,000 in term order)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from mailfactory import module_project


MAILS = [
    dict(message_id="<a@x>", subject="Pipeline budget review",
         body="The gas pipeline budget is over. Budgeting for buds.", frm="Drew Fossum <drew.fossum@enron.com>"),
    dict(message_id="<b@x>", subject="Lunch", body="Lunch on Friday? The budget allows pizza in Budapest.",
         frm="kay.mann@enron.com"),
    dict(message_id="<c@x>", subject="Codes", body=" ".join(f"zqa{n:04d}" for n in range(1500)), frm="c@example.org"),
]


project = module_project(MAILS)


@pytest.mark.parametrize("query, terms", [
    ("budg*", ("budget",)),
    ("Budg*", ("budget",)),
    ("bud?et", ("budget",)),
    ("bud*", ("bud", "budapest", "budget")),
    ("*get", ("budget",)),
    ("subject:budg*", ("budget",)),
    ("all:budg*", ("budget",)),
    ("pipelin* OR lunch", ("lunch", "pipelin")),
    ("pipeline budg*", ("budget", "pipelin")),
    ("budget", ("budget",)),            # plain words as before
    ("from:fos*", ()),                   # not a text field: nothing to highlight in the text
    ("nosuchword*", ()),
])
def test_terms(project, query, terms):
    assert project.search(query).terms == terms


def test_highlighted_spans(project):
    text = "Budgeting: the budget for buds in Budapest, not Buddhism."
    terms = project.search("bud*").terms
    spans = project.highlight_spans(text, terms)
    assert [text[a:b] for a, b in spans] == ["Budgeting", "budget", "buds", "Budapest"]
    assert [text[a:b] for a, b in project.highlight_spans(text, project.search("budg*").terms)] == ["Budgeting", "budget"]


def test_expansions_bounded_to_the_first_in_term_order(project):
    from sasc_desktop.engine.index.query import MAX_EXPANSIONS
    assert MAX_EXPANSIONS == 1000
    terms = project.search("zqa*").terms
    assert terms == tuple(f"zqa{n:04d}" for n in range(1000))
    assert project.search("zqa1*").terms == tuple(f"zqa{n:04d}" for n in range(1000, 1500))
    assert project.search("zqa0*").terms == tuple(f"zqa{n:04d}" for n in range(1000))
    assert project.search("zqa?499").terms == ("zqa0499", "zqa1499")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 1499), st.integers(1, 3))
def test_prefix_terms_match_a_brute_force_oracle(project, n, cut):
    """The terms of 'zqa' + a prefix of a number's digits: every code with that prefix (by brute
    force over the codes indexed), the first 1,000."""
    digits = f"{n:04d}"[:4 - cut]
    expected = sorted(f"zqa{k:04d}" for k in range(1500) if f"{k:04d}".startswith(digits))[:1000]
    assert list(project.search(f"zqa{digits}*").terms) == expected


@pytest.mark.parametrize("query, terms", [
    ("budget NOT lunch", ("budget",)),
    ("budget -pizza", ("budget",)),
    ("budget NOT subject:lunch", ("budget",)),       # the reviewer's: 'power NOT subject:california'
    ("budget ANDNOT lunch", ("budget",)),
    ("budget AND NOT lunch", ("budget",)),
    ("budget NOT (lunch OR pizza)", ("budget",)),
    ("budg* NOT bud*", ("budget",)),
    ("NOT lunch", ()),
    ("(budget NOT lunch) OR pizza", ("budget", "pizza")),
    ("budget ANDMAYBE lunch", ("budget", "lunch")),  # (maybe: wanted, not required)
    ('"pipeline budget" NOT "lunch on friday"', ("budget", "pipelin")),
])
def test_words_left_out_are_not_highlighted(project, query, terms):
    assert project.search(query).terms == terms
    text = "Lunch and pizza: the budget."
    marked = [text[a:b].lower() for a, b in project.highlight_spans(text, project.search(query).terms)]
    assert "lunch" not in marked or "lunch" in terms
