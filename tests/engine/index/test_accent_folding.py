"""Search folds Latin and Greek accents, in the index and in queries alike: 'cafe' finds 'Café',
'café' finds 'cafe', from:jose finds 'José'; where a mark makes another letter (Cyrillic й,
Japanese ガ) nothing is folded. Highlighting marks the accented word a plain query found."""
from __future__ import annotations

import unicodedata

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
    # decomposed (NFD) accents, as some mail programs write them (were cut: "re", "sume")
    dict(message_id="<nfd@x>", subject=unicodedata.normalize("NFD", "Réunion"),
         body=unicodedata.normalize("NFD", "Le résumé de Zoë à l'école, Й.")),
    # stylised letters (were indexed upper-case: no typed query found them)
    dict(message_id="<fancy@x>", subject="\U0001d405\U0001d411\U0001d404\U0001d404 offer",
         body="\U0001d401\U0001d414\U0001d403\U0001d406\U0001d404\U0001d413 \u210d\U0001d560\U0001d565\U0001d556\U0001d55d booking"),
    # 40 letters as written, 41 folded (ß: ss): indexed, as the query's 40-letter limit expects
    dict(message_id="<long@x>", subject="Shipping", body="donaudampfschifffahrtsgesellschaftsgroße project"),
    # a word as written that folds to a stop word: still a word ("the" stays a stop word)
    dict(message_id="<tea@x>", subject="Pause", body="Un thé vert, merci."),
]


session = module_project([{**m, "ctype": "Content-Type: text/plain; charset=utf-8"} for m in MAILS])


def test_fold_exact():
    assert [fold(w) for w in ["café", "müller", "straße", "ærø", "naïve", "ﬁnance", "i\u0307stanbul", "ελλάδα",
                              "łódź", "budget", "йогурт", "ガス", "½", "cafe\u0301", "\u0438\u0306",
                              "\u30ab\u3099", "\U0001d401\U0001d414"]] == [
        "cafe", "muller", "strasse", "aero", "naive", "finance", "istanbul", "ελλαδα",
        "lodz", "budget", "йогурт", "ガス", "½", "cafe", "й", "ガ", "bu"]


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
    ("resume", {"nfd@x"}),
    ("résumé", {"nfd@x"}),
    ("ecole", {"nfd@x"}),
    ("subject:reunion", {"nfd@x"}),
    ("budget", {"fancy@x"}),
    ("BUDGET hotel", {"fancy@x"}),
    ("subject:free", {"fancy@x"}),
    ("donaudampfschifffahrtsgesellschaftsgroße", {"long@x"}),
    ("donaudampfschifffahrtsgesellschaftsgrosse", set()),   # (41 letters as written: refused below)
    ("thé vert", {"tea@x"}),
    ("THÉ", {"tea@x"}),
])
def test_accents_are_folded_on_both_sides(session, query, expected):
    if len(query) > 40:
        from sasc_desktop.engine.errors import QueryError
        with pytest.raises(QueryError, match="longer than 40"):
            found(session, query)
        return
    assert found(session, query) == expected


def test_the_accented_word_is_highlighted(session):
    hit = next(h for h in session.search("cafe muller", limit=10).hits if h.doc_id == "cafe@x")
    subject = "Lunch at the Café Müller"
    terms = session.index.query_terms(session.index.parse("cafe muller"))
    assert [subject[a:b] for a, b in session.index.highlight_spans(subject, terms)] == ["Café", "Müller"]
    assert hit.doc_id == "cafe@x"
