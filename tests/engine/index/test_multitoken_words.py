"""A word the analyser splits (an address, a hyphenated word, a number with slashes, 2001-03) is
searched as its pieces in order next to each other, a phrase, not as any one of them
(steven.kean@enron.com found 251 Enron messages, none holding it). Against a scan of the stored
text analysed with the index's analyser; field weights still apply."""
from __future__ import annotations

import random

import pytest
from mailfactory import found, ingested_project
from oracle_corpus import SPECIAL, WORDS, has_phrase, has_word


SPLIT = ["steven.kean@enron.com", "year-end", "11/22/99", "22/11/99", "Energy-related", "2001-03", "kean-steven",
         "end-year", "enron.com/steven"]


@pytest.mark.parametrize("word", SPLIT)
def test_a_split_word_is_its_pieces_in_order(oracle, word):
    session, docs = oracle
    expected = {d.doc_id for d in docs.values() if has_phrase(d, word)}
    assert found(session, word) == expected
    assert found(session, f'"{word}"') == expected


@pytest.mark.parametrize("seed", range(4))
def test_split_words_beside_other_words_and_nots(oracle, seed):
    session, docs = oracle
    rng = random.Random(seed)
    for _ in range(20):
        w, a = rng.choice(SPLIT), rng.choice(WORDS)
        for q, match in ((f"{w} {a}", lambda d: has_phrase(d, w) or has_word(d, a)),
                         (f"{a} NOT {w}", lambda d: has_word(d, a) and not has_phrase(d, w)),
                         (f"{w} AND {a}", lambda d: has_phrase(d, w) and has_word(d, a))):
            assert found(session, q) == {d.doc_id for d in docs.values() if match(d)}, q


def test_special_words_of_the_corpus_are_covered(oracle):
    _session, docs = oracle
    assert all(any(has_phrase(d, w) for d in docs.values()) for w in SPECIAL if len(w.split()) == 1)


def test_field_weights_apply_to_the_phrase(tmp_path):
    s = ingested_project(tmp_path, [
        dict(message_id="<body@x>", subject="Notes", body="The year-end close is near."),
        dict(message_id="<subj@x>", subject="Year-end close", body="See the notes."),
        dict(message_id="<apart@x>", subject="End of the year", body="A year, then an end.")])
    try:
        assert [h.doc_id for h in s.search("year-end").hits] == ["subj@x", "body@x"]
        s.update_settings(field_weights={"subject": 0.0})
        assert [h.doc_id for h in s.search("year-end").hits] == ["body@x"]
        assert {h.doc_id for h in s.search("all:year-end").hits} == {"body@x", "subj@x", "apart@x"}  # all: no positions
    finally:
        s.close()
