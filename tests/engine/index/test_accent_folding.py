"""Search folds Latin and Greek accents, in the index and in queries alike: 'cafe' finds 'Café',
'café' finds 'cafe', from:jose finds 'José'; where a mark makes another letter (Cyrillic й,
Japanese ガ) nothing is folded. Highlighting marks the accented word a plain query found."""
from __future__ import annotations

import pytest
from mailfactory import found, module_project

from sasc_desktop.engine.index.schema import fold

MAILS = [
    dict(message_id="<cafe@x>", subject="Lunch at the Café Müller", body="Meet at noon.", frm="José Pérez <jose@x.org>"),
    dict(message_id="<plain@x>", subject="cafe muller menu", body="Plain spelling."),
    dict(message_id="<street@x>", subject="Office move", body="The new office is on Hauptstraße; the Ærø ferry."),
    dict(message_id="<greek@x>", subject="Trip", body="Ελλάδα report attached."),
    dict(message_id="<cyr@x>", subject="Order", body="Йогурт and ガス deliveries."),
    dict(message_id="<other@x>", subject="Order", body="иогурт and カス deliveries."),
]


session = module_project([{**m, "ctype": "Content-Type: text/plain; charset=utf-8"} for m in MAILS])


def test_fold_exact():
    assert [fold(w) for w in ["café", "müller", "straße", "ærø", "naïve", "ﬁnance", "i\u0307stanbul", "ελλάδα",
                              "łódź", "budget", "йогурт", "ガス", "½"]] == [
        "cafe", "muller", "strasse", "aero", "naive", "finance", "istanbul", "ελλαδα",
        "lodz", "budget", "йогурт", "ガス", "½"]


@pytest.mark.parametrize("query, expected", [
    ("cafe", {"cafe@x", "plain@x"}),
    ("café", {"cafe@x", "plain@x"}),
    ("CAFÉ MÜLLER", {"cafe@x", "plain@x"}),
    ('"cafe muller"', {"cafe@x", "plain@x"}),
    ("subject:müller", {"cafe@x", "plain@x"}),
    ("caf*", {"cafe@x", "plain@x"}),
    ("café*", {"cafe@x", "plain@x"}),
    ("hauptstrasse", {"street@x"}),
    ("hauptstraße", {"street@x"}),
    ("aero", {"street@x"}),
    ("ελλαδα", {"greek@x"}),
    ("from:jose", {"cafe@x"}),
    ("from:pérez", {"cafe@x"}),
    ("from:perez", {"cafe@x"}),
    ("йогурт", {"cyr@x"}),      # (й is not и)
    ("иогурт", {"other@x"}),
    ("ガス", {"cyr@x"}),        # (ガ is not カ)
    ("カス", {"other@x"}),
])
def test_accents_are_folded_on_both_sides(session, query, expected):
    assert found(session, query) == expected


def test_the_accented_word_is_highlighted(session):
    hit = next(h for h in session.search("cafe muller", limit=10).hits if h.doc_id == "cafe@x")
    subject = "Lunch at the Café Müller"
    terms = session.index.query_terms(session.index.parse("cafe muller"))
    assert [subject[a:b] for a, b in session.index.highlight_spans(subject, terms)] == ["Café", "Müller"]
    assert hit.doc_id == "cafe@x"
