"""A prefix or wildcard in a stemmed field matches the indexed terms starting with (or matching)
its stem or its text as typed, lower-cased: energy* is energi* or energy*, so 'EnergyOnline'
(indexed as 'energyonlin') is found, as it was not. Against a scan of the stored text analysed
with the index's analyser; highlighting follows."""
from __future__ import annotations

import fnmatch

import pytest
from mailfactory import found, ingested_project
from oracle_corpus import SPECIAL, WORDS
from whoosh.lang.porter import stem


def test_the_reviewers_case_and_its_highlighting(tmp_path):
    s = ingested_project(tmp_path, [
        dict(message_id="<a@x>", subject="a", body="Visit EnergyOnline today"),
        dict(message_id="<b@x>", subject="b", body="nothing here"),
        dict(message_id="<c@x>", subject="c", body="energy prices")])
    try:
        assert found(s, "energy*") == {"a@x", "c@x"}
        assert found(s, "Energy*") == {"a@x", "c@x"}
        assert found(s, "body:energy*") == {"a@x", "c@x"}
        assert found(s, "all:energy*") == {"a@x", "c@x"}
        assert found(s, "energ?online") == {"a@x"}
        assert found(s, "energ?") == {"c@x"}              # (energy: its stem energi, or energy as typed)
        assert found(s, "energy* NOT prices") == {"a@x"}
        r = s.search("energy*")
        assert r.terms == ("energi", "energyonlin")
        text = "Visit EnergyOnline today: energy, energies."
        assert [text[a:b] for a, b in s.highlight_spans(text, r.terms)] == ["EnergyOnline", "energy", "energies"]
    finally:
        s.close()


def terms_of(doc):
    return set(doc.subject) | set(doc.body)


PREFIXES = sorted({w.lower()[:n] for w in WORDS + SPECIAL for n in range(2, len(w) + 1)
                   if w.lower()[:n].isalnum()})


@pytest.mark.parametrize("prefix", [p for p in PREFIXES if stem(p) != p] + PREFIXES[::5])
def test_prefixes_against_a_scan(oracle, prefix):
    session, docs = oracle
    forms = {stem(prefix), prefix}
    expected = {d.doc_id for d in docs.values() if any(t.startswith(f) for t in terms_of(d) for f in forms)}
    assert found(session, prefix + "*") == expected


@pytest.mark.parametrize("pattern", ["energ?", "energ?online", "pow?rs", "p?wer", "kea?", "*er", "ye?r*", "c?m"])
def test_wildcards_against_a_scan(oracle, pattern):
    session, docs = oracle
    forms = {stem(pattern), pattern}
    expected = {d.doc_id for d in docs.values() if any(fnmatch.fnmatchcase(t, f) for t in terms_of(d) for f in forms)}
    assert found(session, pattern) == expected
