"""Internal domains with letters beyond ASCII (IDN): mail headers carry them in IDNA's ASCII
form (a@xn--mnchen-3ya.de), an archivist types them in Unicode ("münchen.de"), and an SMTPUTF8
message carries the Unicode form itself. Each form matches the other (the features compared
them as plain text: with ["münchen.de"] every address counted as external, silently); a domain
that has no ASCII form is refused with a clear message; inferred domains group both forms; a
feature space fitted before (a saved model's) keeps computing what it was fitted on."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.classify import features as F
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session, check_settings

MUNICH = "xn--mnchen-3ya.de"


def _project(tmp_path, messages: list[tuple[str, str]]):
    """A real project of one EML per (from, to), ingested."""
    mail = tmp_path / "mail"
    mail.mkdir()
    for i, (sender, to) in enumerate(messages):
        (mail / f"{i}.eml").write_bytes(
            f"From: {sender}\nTo: {to}\nMessage-ID: <m{i}@x>\nSubject: s{i}\n"
            "Content-Type: text/plain; charset=utf-8\n\nbudget\n".encode("utf-8"))
    s = Session.create(tmp_path / "p")
    s.ingest([mail], workers=0)
    return s


def _meta(s, domains):
    """(sender_internal, n_internal_recipients) of every message, in row order."""
    rows = [F.metadata_features(doc, domains) for _, doc in F.load_docs(s.store)]
    return [(r["sender_internal"], r["n_internal_recipients"]) for r in rows]


def test_ascii_domain_exact_forms():
    cases = {
        "münchen.de": MUNICH, "MÜNCHEN.DE": MUNICH, "XN--MNCHEN-3YA.DE": MUNICH, MUNICH: MUNICH,
        " münchen.de. ": MUNICH,
        "ｍünchen．de": MUNICH,                       # fullwidth letter and dot (NFKC, UTS #46)
        "münchen。de": MUNICH,                        # ideographic full stop
        "straße.de": "xn--strae-oqa.de",              # IDNA 2008: "ß" kept (the idna codec gives strasse.de)
        "bücher.de": "xn--bcher-kva.de",
        "правительство.рф": "xn--80aealotwbjpid2k.xn--p1ai",
        "Corp.COM": "corp.com", "mail.corp.co.uk": "mail.corp.co.uk",
    }
    assert {d: F.ascii_domain(d) for d in cases} == cases
    for bad, label in [("xn--zz!.de", "xn--zz!"), ("xn--.de", "xn--"), ("xn--zzz-.de", "xn--zzz-"),
                       ("xn--a-ecp.de", "xn--a-ecp")]:   # not punycode; decodes to ASCII; decodes to "a1."
        with pytest.raises(ValueError) as err:
            F.ascii_domain(bad)
        assert str(err.value) == (f"{label!r} is not a valid IDNA label (its punycode does not decode to a name "
                                  "with letters beyond ASCII)")
    with pytest.raises(ValueError, match=r"is 76 characters long in ASCII form, more than a domain's 63"):
        F.ascii_domain("ü" * 70 + ".de")


def test_a_unicode_setting_matches_the_punycode_mail_carries(tmp_path):
    """The reported case: mail from and to a@xn--mnchen-3ya.de, internal_domains ["münchen.de"]."""
    s = _project(tmp_path, [(f"a@{MUNICH}", f"b@{MUNICH}"), ("c@other.org", f"b@{MUNICH}, d@sub.{MUNICH}")])
    with s:
        assert s.update_settings(internal_domains=["münchen.de"])["internal_domains"] == ["münchen.de"]  # as typed
        domains = F.project_internal_domains(s)
        assert domains == [MUNICH]
        assert F.is_internal(f"a@{MUNICH}", domains) and F.is_internal(f"a@{MUNICH}", ["münchen.de"])
        assert F.is_internal(f"d@sub.{MUNICH}", ["MÜNCHEN.de"]) and not F.is_internal("c@other.org", domains)
        assert _meta(s, domains) == [(1.0, math.log1p(1)), (0.0, math.log1p(2))]
        # the project's feature matrix: its space compares in one form too
        fm = F.project_features(s)
        assert fm.space.internal_domains_ == [MUNICH]
        dense = F._dense_rows(fm.space._rows_args([doc for _, doc in F.load_docs(s.store)]))
        col = list(F.DENSE_NAMES).index("meta:sender_internal")
        assert dense[:, col].tolist() == [1.0, 0.0]


def test_a_punycode_setting_matches_smtputf8_addresses(tmp_path):
    """The reverse: an SMTPUTF8 message carries a@münchen.de (any case); the setting is punycode."""
    s = _project(tmp_path, [("Ann <a@münchen.de>", "b@MÜNCHEN.de, c@other.org")])
    with s:
        assert s.store.con.execute("SELECT from_addr FROM messages").fetchone()[0] == "a@münchen.de"
        s.update_settings(internal_domains=[MUNICH])
        assert F.project_internal_domains(s) == [MUNICH]
        assert _meta(s, F.project_internal_domains(s)) == [(1.0, math.log1p(1))]


def test_inferred_domains_count_both_forms_as_one(tmp_path):
    """Senders at münchen.de (SMTPUTF8) and at xn--mnchen-3ya.de are one organisation: 3 + 3 of 8
    messages, a clear share (each form alone, 3 of 8 against the other's 3, was none)."""
    s = _project(tmp_path, [("a@münchen.de", "x@gmail.com")] * 3 + [(f"b@{MUNICH}", "x@gmail.com")] * 3
                 + [("c@other.org", f"b@{MUNICH}"), ("d@third.org", "a@münchen.de")])
    with s:
        assert F.infer_internal_domains(dict(s.sender_domains())) == [MUNICH]
        domains = F.project_internal_domains(s)
        assert domains == [MUNICH]
        assert [r[0] for r in _meta(s, domains)] == [1.0] * 6 + [0.0, 0.0]
    assert F.infer_internal_domains({"münchen.de": 3, MUNICH: 3, "other.org": 3}) == [MUNICH]   # 6 >= 2 x 3


def test_settings_refuse_a_domain_without_an_ascii_form_saying_why(tmp_path):
    with Session.create(tmp_path / "p") as s:
        with pytest.raises(InputError) as err:
            s.update_settings(internal_domains=["corp.com", "xn--zz!.de"])
        assert str(err.value) == ("internal_domains: 'xn--zz!.de' cannot be written in the ASCII form mail headers "
                                  "carry (IDNA): 'xn--zz!' is not a valid IDNA label (its punycode does not decode to "
                                  'a name with letters beyond ASCII) (e.g. "münchen.de" or "xn--mnchen-3ya.de")')
        long = "ü" * 70 + ".de"
        with pytest.raises(InputError, match=r"^internal_domains: '" + long + "' cannot be written in the ASCII form"):
            s.update_settings(internal_domains=[long])
        assert s.settings()["internal_domains"] is None   # nothing stored
        for bad in (["a b.com"], ["corp."], ["corp.com."], ["münchen"], ["-x.de"]):
            with pytest.raises(InputError, match="is not a domain name"):
                check_settings({"internal_domains": bad})
        # scripts whose letters carry combining marks (refused before: a mark is not \w)
        assert check_settings({"internal_domains": ["हिन्दी.com", "Straße.de", MUNICH]})["internal_domains"] == [
            "हिन्दी.com", "straße.de", MUNICH]


def test_a_space_fitted_before_keeps_comparing_as_written():
    """A feature space saved in a model before FEATURE_VERSION 11 (no domain_form_) was fitted
    with domains compared as written: its features stay what the model learned from."""
    docs = [F.DocFields(doc_id="d0", from_addr=f"a@{MUNICH}", to="b@münchen.de", body="x"),
            F.DocFields(doc_id="d1", from_addr="a@münchen.de", to=f"b@{MUNICH}", body="y")]
    space = F.FeatureSpace(F.FeatureOptions(min_df=1))
    space.fit_transform(docs, ["münchen.de"], {})
    col = list(F.DENSE_NAMES).index("meta:sender_internal")
    assert space.internal_domains_ == [MUNICH]
    assert F._dense_rows(space._rows_args(docs))[:, col].tolist() == [1.0, 1.0]
    old = F.FeatureSpace(F.FeatureOptions(min_df=1))
    old.__setstate__({k: v for k, v in space.__dict__.items() if k not in ("domain_form_", "_blob")})
    old.internal_domains_ = ["münchen.de"]                     # as version 10 stored it
    assert F._dense_rows(old._rows_args(docs))[:, col].tolist() == [0.0, 1.0]


_LABEL = st.text(st.characters(categories=("Ll", "Lu", "Lo", "Nd")), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LABEL, min_size=1, max_size=3), st.sampled_from(["de", "com", "рф"]))
def test_each_form_of_a_domain_matches_the_other(labels, tld):
    domain = ".".join(labels + [tld])
    try:
        form = F.ascii_domain(domain)
    except ValueError:   # a label too long in ASCII form: refused, never matched
        return
    assert form.isascii() and F.ascii_domain(form) == form
    for address, given_domains in ((f"x@{form}", [domain]), (f"x@{domain}", [form]), (f"x@sub.{domain}", [form]),
                                   (f"x@{form.upper()}", [domain])):
        assert F.is_internal(address, given_domains)
    assert not F.is_internal(f"x@not{form}", [domain])
