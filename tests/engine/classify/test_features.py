"""Exact expectations for the pure feature extractors."""
import math

import numpy as np
import pytest

from sasc_desktop.engine.classify.features import (DocFields, META_NAMES, NET_NAMES, addresses, infer_internal_domains,
                                                   is_internal, is_public_mail_domain, metadata_features,
                                                   network_centralities, network_features, pii_features,
                                                   registrable_domain)
from sasc_desktop.engine.classify.judgments_io import enron_judgments
from sasc_desktop.engine.classify.model import best_threshold


def test_addresses_and_internal():
    assert addresses('"Doe, Jane" <Jane@Corp.com>, bob@x.org') == ["jane@corp.com", "bob@x.org"]
    assert is_internal("a@corp.com", ["corp.com"]) and is_internal("a@mail.corp.com", ["corp.com"])
    assert not is_internal("a@notcorp.com", ["corp.com"])
    assert infer_internal_domains({"enron.com": 812, "aol.com": 11, "x.com": 300}) == ["enron.com"]
    assert infer_internal_domains({}) == []


def test_internal_domains_need_a_clear_share_and_are_never_webmail():
    # no domain stands out: nothing is inferred
    assert infer_internal_domains({"a.com": 1, "b.com": 1, "c.org": 1}) == []
    assert infer_internal_domains({"a.com": 10, "b.com": 6, "c.org": 4}) == []            # 10 < 2 x 6
    assert infer_internal_domains({"a.com": 29, **{f"d{i}.org": 1 for i in range(71)}}) == []  # 29% of 100
    assert infer_internal_domains({"a.com": 30, **{f"d{i}.org": 1 for i in range(70)}}) == ["a.com"]  # 30%
    # public webmail is never internal, whatever its share (it still counts in the total)
    assert infer_internal_domains({"gmail.com": 10, "yahoo.com": 4, "hotmail.com": 3}) == []
    assert infer_internal_domains({"hotmail.com": 149, "yahoo.co.uk": 126, "mail.yahoo.com": 90, "corp.com": 60}) == []
    assert infer_internal_domains({"gmail.com": 50, "corp.com": 40, "x.org": 10}) == ["corp.com"]
    # subdomains count for their registrable domain, and are internal through it
    assert infer_internal_domains({"corp.com": 20, "mail.corp.com": 20, "x.org": 10}) == ["corp.com"]
    assert infer_internal_domains({"mail.corp.com": 40, "x.org": 15}) == ["corp.com"]
    assert infer_internal_domains({" Corp.COM ": 5, "corp.com": 1}) == ["corp.com"]
    assert [d for d in ["yahoo.co.uk", "mail.yahoo.com", "hotmail.fr", "gmx.at", "live.com", "enron.com",
                        "yahoo-inc.com", "live.example.org", "aol.com"] if is_public_mail_domain(d)] == [
        "yahoo.co.uk", "mail.yahoo.com", "hotmail.fr", "gmx.at", "live.com", "aol.com"]


def test_internal_domains_grouped_by_registrable_domain_and_organisation():
    assert [registrable_domain(d) for d in ["mail.corp.com", "us.ibm.com", "ibm.com", "sales.corp.co.uk", "corp.co.uk",
                                            "corp.com.au", "x.y.corp.co.jp", "corp.com.br", "cs.uni.ac.uk", "org.uk",
                                            "a.b.c.de", "localhost", "192.168.1.1", "[10.0.0.1]", " Mail.Corp.COM. "]] == [
        "corp.com", "ibm.com", "ibm.com", "corp.co.uk", "corp.co.uk", "corp.com.au", "corp.co.jp", "corp.com.br",
        "uni.ac.uk", "org.uk", "c.de", "localhost", "192.168.1.1", "[10.0.0.1]", "corp.com"]
    # subdomains count for their registrable domain, also when it sent no mail itself
    assert infer_internal_domains({"us.ibm.com": 35, "uk.ibm.com": 20, "de.ibm.com": 15, "gmail.com": 10,
                                   "partner.com": 20}) == ["ibm.com"]
    # one organisation under two suffixes
    assert infer_internal_domains({"corp.co.uk": 40, "corp.com": 30, "other.co.uk": 10, "gmail.com": 20}) == [
        "corp.co.uk", "corp.com"]
    # a counterparty is not internal by its count alone
    assert infer_internal_domains({"corp.com": 40, "us.corp.com": 20, "partner.com": 25, "gmail.com": 15}) == [
        "corp.com"]
    assert infer_internal_domains({"corp.com": 100, "partner.com": 49}) == ["corp.com"]
    assert infer_internal_domains({"corp.com": 100, "partner.com": 51}) == []        # 100 < 2 x 51: no clear share
    # a subdomain's organisation and its parent's are one: the lead is over other organisations
    assert infer_internal_domains({"corp.com": 30, "eu.corp.com": 30, "x.org": 29, "y.org": 1}) == ["corp.com"]
    # the webmail brand rule is for country domains only: orange.com is a company's
    assert infer_internal_domains({"orange.com": 500, "gmail.com": 50, "supplier.fr": 60}) == ["orange.com"]
    assert infer_internal_domains({"mail.orange.com": 500, "gmail.com": 50, "supplier.fr": 60}) == ["orange.com"]
    assert infer_internal_domains({"orange.fr": 500, "gmail.com": 50, "supplier.fr": 60}) == []
    assert [d for d in ["orange.fr", "orange.com", "mail.orange.com", "yahoo.com.br", "hotmail.co.jp", "orange.co.uk",
                        "gmx.example.com", "live.org"] if is_public_mail_domain(d)] == [
        "orange.fr", "yahoo.com.br", "hotmail.co.jp", "orange.co.uk"]
    assert infer_internal_domains({"corp.com": 0, "x.org": 0}) == [] and infer_internal_domains({"": 5}) == []
    # documentation domains are suffixes: each organisation of the demo collection is its own
    assert [registrable_domain(d) for d in ["arclight.example.com", "mail.arclight.example.com", "x.example.edu",
                                            "example.com"]] == [
        "arclight.example.com", "arclight.example.com", "x.example.edu", "example.com"]
    demo = {"arclight.example.com": 349, "stonebridge.example.edu": 24, "inboxly.example.net": 9,
            "sensorweekly.example.com": 4, "talentbridge.example.com": 3, "postmail.example.org": 3,
            "lumiere-optique.example.fr": 1, "sensorcon.example.org": 1}
    assert infer_internal_domains(demo) == ["arclight.example.com"]


def _sender_domains(folder) -> dict[str, int]:
    """Sender domain counts of a corpus folder, from each message's From header."""
    import email.parser
    import email.policy
    from collections import Counter
    from email.utils import getaddresses
    parser = email.parser.BytesHeaderParser(policy=email.policy.compat32)
    counts: Counter = Counter()
    for f in folder.rglob("*"):
        if f.is_file() and f.suffix != ".cats" and f.name != "categories.txt":
            with open(f, "rb") as fh:
                found = [a for _, a in getaddresses([str(parser.parse(fh).get("From", ""))]) if "@" in a]
            if found:
                counts[found[0].strip().lower().rpartition("@")[2]] += 1
    return dict(counts)


def test_internal_domains_on_the_real_corpora(shared_data):
    """Enron: enron.com alone (812 of 875 senders). spamassassin: nothing in the ham and spam
    folders (no domain has 30%: easy-ham-1's spamassassin.taint.org has 26%); hard-ham-1, a
    newsletter folder, gives the newsletter's online.com (85 of 250, 2.8 x lockergnome.com)."""
    got = {name: infer_internal_domains(_sender_domains(shared_data / name))
           for name in ["enron-categories-dev", "spamassassin/easy-ham-1", "spamassassin/easy-ham-2",
                        "spamassassin/hard-ham-1", "spamassassin/spam-1", "spamassassin/spam-2"]}
    assert got == {"enron-categories-dev": ["enron.com"], "spamassassin/easy-ham-1": [],
                   "spamassassin/easy-ham-2": [], "spamassassin/hard-ham-1": ["online.com"],
                   "spamassassin/spam-1": [], "spamassassin/spam-2": []}


def test_forward_and_quoted_original_markers():
    def f(subject="", body=""):
        m = metadata_features(DocFields(doc_id="d", subject=subject, body=body), [])
        return m["is_forward"], m["has_quoted_original"], m["is_reply"]
    outlook = "see below\n\n -----Original Message-----\nFrom: a\nSent: ...\n"
    assert f("RE: lunch", outlook) == (0.0, 1.0, 1.0)                      # an Outlook reply
    assert f("FW: lunch", outlook) == (1.0, 1.0, 0.0)                      # an Outlook forward
    assert f("Fwd: lunch") == (1.0, 0.0, 0.0) and f("  wg: x") == (1.0, 0.0, 0.0)
    assert f("RE: FW: lunch") == (0.0, 0.0, 1.0)                           # a reply to a forward
    assert f("lunch", "fyi\n---------------------- Forwarded by Jeff Dasovich/NA/Enron on 03/15/2001") == (1.0, 0.0, 0.0)
    assert f("x", "---------- Forwarded message ---------\nFrom: a") == (1.0, 0.0, 0.0)
    assert f("x", "-------- Forwarded Message --------\nSubject: y") == (1.0, 0.0, 0.0)
    assert f("x", "Begin forwarded message:\n\nFrom: a") == (1.0, 0.0, 0.0)
    assert f("x", "----- Original Message -----\nFrom: a") == (0.0, 1.0, 0.0)   # Outlook Express
    # not markers: prose, a quoted "Subject: FW:" line, a body line starting "Fw:"
    assert f("x", "this was forwarded by Jeff yesterday; the original message is lost") == (0.0, 0.0, 0.0)
    assert f("x", "Subject: FW: lunch\nFw: this line") == (0.0, 0.0, 0.0)


def test_priority_and_importance_are_exact_tokens():
    def f(importance="", priority=""):
        m = metadata_features(DocFields(doc_id="d", importance=importance, priority=priority), [])
        return m["importance_high"], m["importance_low"], m["priority_high"]
    assert f("High") == (1.0, 0.0, 0.0) and f('"high"') == (1.0, 0.0, 0.0) and f(" LOW ") == (0.0, 1.0, 0.0)
    assert f("not high") == (0.0, 0.0, 0.0) and f("Normal") == (0.0, 0.0, 0.0) and f("highish") == (0.0, 0.0, 0.0)
    for p, high in [("1 (Highest)", 1.0), ("2 (High)", 1.0), ("3 (Normal)", 0.0), ("5 (Lowest)", 0.0), ("urgent", 1.0),
                    ("Urgent", 1.0), ("non-urgent", 0.0), ("normal", 0.0), ("High", 1.0), ("12", 0.0), ('"1"', 1.0)]:
        assert f(priority=p)[2] == high, p


def test_metadata_features_exact():
    doc = DocFields(doc_id="d", subject="RE: lunch", body="hello\n-----Original Message-----\n", attachments="abc",
                    n_attachments=2, date="2001-03-10T21:15:00-08:00", from_addr="a@corp.com",
                    to="b@corp.com, c@ext.org", cc="d@corp.com", bcc="", importance="High", priority="",
                    sensitivity_header="Private")
    f = metadata_features(doc, ["corp.com"])
    assert set(f) == set(META_NAMES)
    expect_ones = {"weekday_sat", "weekend", "hour_evening", "sender_internal", "any_external_recipient", "has_attachments",
                   "is_reply", "has_quoted_original", "importance_high", "sensitivity_header_private"}
    for k in expect_ones:
        assert f[k] == 1.0, k
    assert f["n_recipients"] == pytest.approx(math.log1p(3))
    assert f["n_internal_recipients"] == pytest.approx(math.log1p(2))
    assert f["n_external_recipients"] == pytest.approx(math.log1p(1))
    assert f["n_cc"] == pytest.approx(math.log1p(1))
    assert f["subject_length"] == pytest.approx(math.log1p(9))
    assert f["attachment_length"] == pytest.approx(math.log1p(3))
    assert f["n_attachments"] == pytest.approx(math.log1p(2))
    zero = set(META_NAMES) - expect_ones - {"n_recipients", "n_internal_recipients", "n_external_recipients", "n_cc",
                                            "subject_length", "body_length", "attachment_length", "n_attachments"}
    assert all(f[k] == 0.0 for k in zero)


def test_metadata_without_date_or_sender():
    f = metadata_features(DocFields(doc_id="x"), [])
    assert f["no_date"] == 1.0 and f["sender_internal"] == 0.0 and f["sender_external"] == 0.0
    assert f["all_recipients_internal"] == 0.0 and f["n_recipients"] == 0.0


def test_pii_features_exact():
    f = pii_features("card 4111111111111111, bad 4111111111111112, call (503) 555-0123 or (617) 555-0199")
    assert f["payment_card_count"] == pytest.approx(math.log1p(1))
    assert f["phone_count"] == pytest.approx(math.log1p(2))
    assert f["national_id_count"] == 0.0 and f["any_pii"] == 1.0
    assert pii_features("nothing here")["any_pii"] == 0.0


def test_network_centralities_and_features():
    edges = [("a@x", "b@x", "to", 1), ("a@x", "c@x", "to", 1), ("b@x", "c@x", "cc", 2)]
    c = network_centralities(edges)
    # 3 nodes: degree centrality = degree / (n - 1)
    assert c["a@x"][:2] == (0.0, 1.0)
    assert c["c@x"][:2] == (1.0, 0.0)
    assert c["b@x"][:2] == (0.5, 0.5)
    assert c["b@x"][3] == pytest.approx(0.0)  # a->c exists, so b is on no shortest path
    f = network_features(DocFields(doc_id="m", from_addr="a@x", to="b@x, c@x"), c)
    assert set(f) == set(NET_NAMES)
    assert f["sender_out_degree"] == 1.0
    assert f["recipients_min_in_degree"] == 0.5 and f["recipients_max_in_degree"] == 1.0
    assert f["recipients_mean_in_degree"] == pytest.approx(0.75)
    empty = network_features(DocFields(doc_id="m"), c)
    assert all(v == 0.0 for v in empty.values())


def test_network_betweenness_on_a_path():
    c = network_centralities([("a", "b", "to", 1), ("b", "c", "to", 1)])
    # b lies on the one shortest path a->c; normalised by (n-1)(n-2) = 2
    assert c["b"][3] == pytest.approx(0.5)


def test_enron_mapping():
    grades, level = enron_judgments([(1, 1, 2), (3, 6, 2), (3, 1, 1), (4, 10, 2)])
    assert grades == {"6": 2, "1": 1} and level == 1
    grades, level = enron_judgments([(1, 1, 1), (3, 6, 1), (4, 12, 1)])
    assert grades == {"6": 1} and level == 0
    grades, level = enron_judgments([(1, 8, 1), (3, 6, 2), (1, 2, 1)])
    assert grades == {} and level == 1   # empty messages are never relevant


def test_best_threshold_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(30):
        y = rng.integers(0, 2, 40)
        p = np.round(rng.random(40), 1)
        t, f = best_threshold(y, p, 2.0)
        best = 0.0
        for cut in np.unique(p):
            pred = p >= cut
            tp, fp, fn = (pred & (y == 1)).sum(), (pred & (y == 0)).sum(), (~pred & (y == 1)).sum()
            best = max(best, 5 * tp / (5 * tp + 4 * fn + fp) if tp else 0.0)
        pred = p >= t
        tp, fp, fn = (pred & (y == 1)).sum(), (pred & (y == 0)).sum(), (~pred & (y == 1)).sum()
        assert f == pytest.approx(best) and (5 * tp / (5 * tp + 4 * fn + fp) if tp else 0.0) == pytest.approx(best)


def test_expected_calibration_error_exact_and_against_a_loop():
    from hypothesis import given, settings, strategies as st
    from sasc_desktop.engine.classify.model import expected_calibration_error as ece
    # bins of 0.5: [0.1, 0.2 | y 0, 1] -> |0.3 - 1| = 0.7; [0.9, 1.0 | y 1, 1] -> |1.9 - 2| = 0.1
    assert ece([0.1, 0.2, 0.9, 1.0], [0, 1, 1, 1], bins=2) == pytest.approx(0.8 / 4)
    assert ece([0.25, 0.75], [0, 1], bins=1) == 0.0   # one bin: mean 0.5 against rate 0.5
    assert ece([], []) == 0.0

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=1, max_size=60), st.integers(1, 20))
    def agrees(pairs, bins):
        p = np.array([a for a, _ in pairs])
        y = np.array([b for _, b in pairs])
        total = 0.0
        for k in range(bins):
            inside = [(a, b) for a, b in pairs if min(int(a * bins), bins - 1) == k]
            if inside:
                total += len(inside) / len(pairs) * abs(np.mean([a for a, _ in inside]) - np.mean([b for _, b in inside]))
        assert ece(p, y, bins) == pytest.approx(total, abs=1e-12)
    agrees()


def test_or_model_recalibrates_the_maximum():
    from sasc_desktop.engine.classify.model import SensitivityClassifier, _sigmoid
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] + 0.8 * rng.normal(size=300) > 0.6).astype(int)
    lr = SensitivityClassifier(kind="lr", C=1.0).fit(X, y)
    assert lr.final_platt_ is None
    both = SensitivityClassifier(kind="or", C=1.0).fit(X, y)
    a, b = both.final_platt_
    assert a > 0   # a monotone map: the ranking (and so ROC AUC) of the maximum is kept
    raw = np.maximum(*[_sigmoid(both.platt_[w][0] * (X @ both.coef_[w] + both.intercept_[w]) + both.platt_[w][1])
                       for w in ("lr", "svm")])
    expected = _sigmoid(a * np.log(raw / (1 - raw)) + b)
    assert np.allclose(both.proba_positive(X), expected, rtol=0, atol=1e-12)
    # a model saved before the final step existed scores with the plain maximum
    del both.final_platt_
    assert np.allclose(both.proba_positive(X), raw, rtol=0, atol=1e-12)


def test_or_model_explains_a_row_by_the_model_that_decides_it():
    from sasc_desktop.engine.classify.model import SensitivityClassifier, _sigmoid
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 5))
    y = (X[:, 0] - X[:, 1] + rng.normal(size=200) > 0.5).astype(int)
    m = SensitivityClassifier(kind="or", C=1.0).fit(X, y)
    seen = set()
    for row in X[:60]:
        p = {w: _sigmoid(m.platt_[w][0] * (row @ m.coef_[w] + m.intercept_[w]) + m.platt_[w][1]) for w in ("lr", "svm")}
        which = "lr" if p["lr"] >= p["svm"] else "svm"
        seen.add(which)
        assert m.deciding_model(row[None, :]) == which
        assert np.array_equal(m.contributions(row[None, :]), row * m.coef_[which])
    assert seen == {"lr", "svm"}  # both cases were exercised
    lr = SensitivityClassifier(kind="lr", C=1.0).fit(X, y)
    assert lr.deciding_model(X[:1]) == "lr" and np.array_equal(lr.contributions(X[:1]), X[0] * lr.coef_["lr"])
