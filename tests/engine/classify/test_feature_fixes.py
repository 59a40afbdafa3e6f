"""Reviewed defects of the feature extractors, each on the real thing: a project really ingested,
settings really stored, a feature space really fitted."""
import numpy as np
import pytest
import scipy.sparse as sp

from sasc_desktop.engine.classify import features as F
from sasc_desktop.engine.errors import InputError, ProjectError
from sasc_desktop.engine.session import Session

_A = """Message-ID: <a1@corp.com>
Date: Mon, 5 Mar 2001 10:00:00 -0800
From: ann@corp.com
To: bob@corp.com
Subject: plans
X-Folder: Inbox

hello bob, see you at lunch
"""
_B = """Message-ID: <b1@corp.com>
Date: Mon, 5 Mar 2001 11:00:00 -0800
From: bob@corp.com
To: ann@corp.com
Subject: other
X-Folder: Inbox

ok thanks
"""
# the sender's own copy of <a1@corp.com>: it has the Bcc, and replaces the kept copy
_A_SENT = _A.replace("To: bob@corp.com\n", "To: bob@corp.com\nBcc: carol@outside.org, dave@outside.org\n") \
            .replace("X-Folder: Inbox", "X-Folder: Sent Items")


def _write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def _csr_equal(a, b) -> bool:
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    a.sort_indices(), b.sort_indices()
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


def test_features_follow_a_sender_copy_that_replaces_the_kept_copy(tmp_path):
    _write(tmp_path / "in", "a.eml", _A)
    _write(tmp_path / "in", "b.eml", _B)
    _write(tmp_path / "sent", "a.eml", _A_SENT)
    with Session.create(tmp_path / "proj") as s:
        s.ingest([tmp_path / "in"], workers=1)
        first = F.project_features(s)
        col = first.names.index("meta:has_bcc")
        assert first.X[:, col].toarray().ravel().tolist() == [0.0, 0.0]   # no Bcc anywhere: a constant column
        report = s.ingest([tmp_path / "sent"], workers=1)
        assert s.store.con.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 2   # replaced, not added
        assert s.store.con.execute("SELECT bcc FROM messages WHERE doc_id = 'a1@corp.com'").fetchone()[0] == \
            "carol@outside.org, dave@outside.org"
        second = F.project_features(s)
        assert second is not first and second.key != first.key
        assert second.key == F._message_set_key(s)[0]
        # z-scores of (1, 0) are (+1, -1), times the metadata weight 0.03
        got = second.X[:, second.names.index("meta:has_bcc")].toarray().ravel()
        assert got.tolist() == pytest.approx([0.03, -0.03]) and second.doc_ids == ["a1@corp.com", "b1@corp.com"]
        F._MEMO.clear(), F._KEYS.clear()
        rebuilt = F.project_features(s)
        assert rebuilt.key == second.key and _csr_equal(rebuilt.X, second.X)
        assert report is not None


def test_internal_domains_setting_is_validated_and_normalised(tmp_path):
    with Session.create(tmp_path / "p") as s:
        for bad, message in [("corp.com", "must be a list of domain names"), ([1], "must be a list of domain names"),
                             ({"corp.com": 1}, "must be a list of domain names"),
                             (["a b.com"], "'a b.com' is not a domain name"),
                             (["corp"], "'corp' is not a domain name"),
                             (["x.org", "corp.", "@"], "'corp.' is not a domain name"),
                             (["x.org", "corp.", "a..b"], "'corp.', 'a..b' are not domain names")]:
            with pytest.raises(InputError, match=message):
                s.update_settings(internal_domains=bad)
            assert s.settings()["internal_domains"] is None                 # nothing stored
        assert s.update_settings(internal_domains=[" Corp.com ", "@corp.com", "mail.Example.co.uk", ""])[
            "internal_domains"] == ["corp.com", "mail.example.co.uk"]
        assert F.project_internal_domains(s) == ["corp.com", "mail.example.co.uk"]
        assert s.update_settings(internal_domains=["münchen.de", "xn--mnchen-3ya.de"])["internal_domains"] == [
            "münchen.de", "xn--mnchen-3ya.de"]
        assert s.update_settings(internal_domains=[" ", "", "@"])["internal_domains"] is None   # none given: inferred
        assert s.update_settings(internal_domains=None)["internal_domains"] is None
        # values stored before validation existed: a bare string, padding, other types
        s.store.set_setting("internal_domains", "Corp.com, x.org")
        assert F.project_internal_domains(s) == ["corp.com", "x.org"]
        s.store.set_setting("internal_domains", [" Corp.com ", 7, "@X.org"])
        assert F.project_internal_domains(s) == ["corp.com", "x.org"]


def _docs():
    bodies = ["hello\n-----Original Message-----\nFrom: b", "card 4111 1111 1111 1111, call (503) 555-0123",
              "fyi\n---------------------- Forwarded by Ann Lee/Corp on 01/02/2001", "lunch at noon?",
              "born on 03/15/1962 at 12 Main Street", "the report is attached"]
    return [F.DocFields(doc_id=f"d{i}", subject=["RE: x", "card", "plans", "lunch", "FW: hr", "report"][i], body=b,
                        date=f"2001-03-0{i + 1}T1{i}:00:00-08:00", from_addr=["a@corp.com", "b@x.org"][i % 2],
                        to="c@corp.com, d@y.org" if i % 3 else "c@corp.com", importance="High" if i == 2 else "")
            for i, b in enumerate(bodies)]


def test_a_space_fitted_before_a_feature_was_added_transforms_with_its_own_columns():
    docs = _docs()
    space = F.FeatureSpace(F.FeatureOptions(min_df=1))
    X = space.fit_transform(docs, ["corp.com"], {})
    assert space.names_[-len(F.DENSE_NAMES):] == list(F.DENSE_NAMES)
    assert abs(space.transform(docs) - X).max() < 1e-6                 # fitting's float32 rounding aside
    new = space.transform(docs)
    # The space as an earlier version saved it: the same without meta:has_quoted_original.
    j = space.names_.index("meta:has_quoted_original")
    k = j - (len(space.names_) - len(F.DENSE_NAMES))                    # its index in the dense block
    old = F.FeatureSpace.__new__(F.FeatureSpace)
    old.__dict__.update({key: v for key, v in space.__dict__.items() if key not in ("_blob", "_payload_cache")})
    old.names_ = space.names_[:j] + space.names_[j + 1:]
    old.mean_, old.std_ = np.delete(space.mean_, k), np.delete(space.std_, k)
    import pickle
    old = pickle.loads(pickle.dumps(old))                               # as a model file holds it
    keep = [c for c in range(X.shape[1]) if c != j]
    assert old._transform(docs).shape == (len(docs), len(old.names_))
    assert _csr_equal(old.transform(docs), new[:, keep])
    # a column this version no longer computes: a clear error, not wrong numbers
    gone = pickle.loads(pickle.dumps(old))
    gone.names_ = gone.names_[:-1] + ["cue:no_such_cue"]
    with pytest.raises(ProjectError, match=r"no longer computes \(cue:no_such_cue\); retrain it"):
        gone.transform(docs)


def test_features_are_built_where_the_models_folder_cannot_be_written(tmp_path):
    """The on-disk feature cache is only a cache: with no writable models folder (a read-only
    folder, or, as root, a file in its place) the matrix is still built and equals the one built
    with the folder writable; nothing is left behind."""
    import os
    _write(tmp_path / "in", "a.eml", _A)
    _write(tmp_path / "in", "b.eml", _B)
    s = Session.create(tmp_path / "proj")
    s.ingest([tmp_path / "in"], workers=0)
    models = s.paths.models
    models.mkdir(parents=True, exist_ok=True)
    os.chmod(models, 0o555)
    as_file = os.access(models, os.W_OK)  # root: permissions do not stop a write
    if as_file:
        os.chmod(models, 0o755)
        models.rmdir()
        models.write_bytes(b"not a folder")
    try:
        F._MEMO.clear()
        blocked = F.project_features(s)
        assert blocked.X.shape[0] == 2
        assert (models.read_bytes() == b"not a folder") if as_file else (list(models.iterdir()) == [])
    finally:
        if as_file:
            models.unlink()
        else:
            os.chmod(models, 0o755)
    F._MEMO.clear()
    fresh = F.project_features(s)
    assert [p.name for p in models.iterdir()] == [f"features-{fresh.key}.joblib"]
    assert fresh.doc_ids == blocked.doc_ids and _csr_equal(fresh.X, blocked.X)
    s.close()
