"""Tests for the deterministic demo collection generator."""
from __future__ import annotations

import collections
import email
import hashlib
import json
import mailbox
import re
import subprocess
import sys
from email import policy
from pathlib import Path

import pytest

from sasc_desktop.engine.demo import generate, labels, people, pii
from sasc_desktop.engine.errors import Cancelled
from sasc_desktop.engine.progress import Progress

REPO = Path(__file__).resolve().parents[3]
N_SMALL = 300
N_MEDIUM = 3000


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _read_sensitivity(root: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in (root / "sensitivity.txt").read_text().splitlines():
        persona, docid, level = line.split(" ")
        out[persona][docid] = int(level)
    return out


def _read_qrels(root: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in (root / "qrels.txt").read_text().splitlines():
        topic, zero, docid, rel = line.split(" ")
        assert zero == "0"
        out[topic][docid] = int(rel)
    return out


def _messages(root: Path):
    """(relative mbox path, raw bytes, parsed message) for every copy in every mailbox."""
    for path in sorted((root / "mail").glob("*/*.mbox")):
        for m in mailbox.mbox(str(path)):
            raw = m.as_bytes()
            yield str(path.relative_to(root)), raw, email.message_from_bytes(raw, policy=policy.default)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo_small")
    summary = generate(out, n_messages=N_SMALL, seed=20261122)
    return out, summary


@pytest.fixture(scope="module")
def medium(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo_medium")
    summary = generate(out, n_messages=N_MEDIUM, seed=20261122)
    return out, summary


@pytest.fixture(scope="module")
def parsed_small(small):
    out, _ = small
    return list(_messages(out))


# --- determinism ------------------------------------------------------------------------------
def test_same_seed_gives_identical_files(small, tmp_path):
    out, _ = small
    again = tmp_path / "again"
    generate(again, n_messages=N_SMALL, seed=20261122)
    assert _files(out) == _files(again)


def test_different_seed_gives_different_files(small, tmp_path):
    out, _ = small
    other = tmp_path / "other"
    generate(other, n_messages=N_SMALL, seed=7)
    a, b = _files(out), _files(other)
    assert a["sensitivity.txt"] != b["sensitivity.txt"]
    assert a["qrels.txt"] != b["qrels.txt"]
    common = [k for k in a if k.endswith(".mbox") and k in b]
    assert common and all(a[k] != b[k] for k in common)


def test_manifest_hashes_match_files(small):
    out, summary = small
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 20261122 and manifest["n_messages"] == N_SMALL
    assert set(manifest["files"]) >= {"topics.json", "qrels.txt", "sensitivity.txt", "reasons.tsv"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    mboxes = sorted(str(p.relative_to(out)) for p in (out / "mail").glob("*/*.mbox"))
    assert sorted(k for k in manifest["files"] if k.endswith(".mbox")) == mboxes
    assert str(out) not in (out / "manifest.json").read_text()   # relative paths only


# --- counts and label files -------------------------------------------------------------------
def test_unique_message_ids_equal_n(small, parsed_small):
    out, summary = small
    ids = {msg["Message-ID"].strip()[1:-1] for _, _, msg in parsed_small}
    assert len(ids) == N_SMALL
    assert len(parsed_small) == summary["counts"]["message_copies"] > N_SMALL


def test_label_docids_exist_and_both_personas_cover_every_message(small, parsed_small):
    out, _ = small
    ids = {msg["Message-ID"].strip()[1:-1] for _, _, msg in parsed_small}
    sens = _read_sensitivity(out)
    assert sorted(sens) == sorted(labels.PERSONAS) == ["holly-palmer", "john-snibert"]
    for persona in labels.PERSONAS:
        assert set(sens[persona]) == ids
        assert set(sens[persona].values()) <= {0, 1}
    qrels = _read_qrels(out)
    for topic, judged in qrels.items():
        assert set(judged) <= ids
        assert set(judged.values()) <= {0, 1, 2}


def test_reasons_tsv_rows_are_sensitive_messages(small):
    out, _ = small
    sens = _read_sensitivity(out)
    lines = (out / "reasons.tsv").read_text().splitlines()
    assert lines[0] == "docid\tpersona\treason"
    rows = [ln.split("\t") for ln in lines[1:]]
    assert rows
    for docid, persona, reason in rows:
        assert sens[persona][docid] == 1
        assert int(reason) in labels.persona_reasons(persona)
    # most sensitive messages have a planted reason (the rest are label noise)
    with_reason = {(d, p) for d, p, _ in rows}
    positives = [(d, p) for p in sens for d, v in sens[p].items() if v]
    assert len(with_reason) >= 0.8 * len(positives)


def test_topics_file_and_relevance_grades(medium):
    out, _ = medium
    topics = json.loads((out / "topics.json").read_text())
    assert len(topics) >= 36            # the study judged 35 topics per persona
    assert [t["id"] for t in topics] == [str(i) for i in range(1, len(topics) + 1)]
    for t in topics:
        assert set(t) == {"id", "title", "description", "narrative"} and all(t.values())
    qrels = _read_qrels(out)
    for t in topics:
        grades = collections.Counter(qrels[t["id"]].values())
        assert grades[2] >= 3, t
        assert grades[1] >= 3, t
        assert grades[0] >= 5, t            # judged non-relevant documents from the pool


def test_topics_have_three_highly_relevant_docs_even_when_small(small):
    out, _ = small
    qrels = _read_qrels(out)
    assert len(qrels) >= 20
    for topic, judged in qrels.items():
        assert sum(1 for v in judged.values() if v == 2) >= 3


def test_sensitive_share_per_persona_and_disagreement(medium):
    out, summary = medium
    sens = _read_sensitivity(out)
    for persona in labels.PERSONAS:
        share = sum(sens[persona].values()) / len(sens[persona])
        assert 0.15 <= share <= 0.45, (persona, share)
        assert summary["sensitive_share"][persona] == pytest.approx(share, abs=1e-4)
    a, b = sens["john-snibert"], sens["holly-palmer"]
    disagree = sum(1 for d in a if a[d] != b[d])
    assert disagree >= 0.1 * len(a)
    assert sum(1 for d in a if a[d] and not b[d]) > 50
    assert sum(1 for d in a if b[d] and not a[d]) > 50


def test_relevant_and_sensitive_structure(medium):
    """Some topics are sensitive throughout, several are mixed, some mostly safe."""
    out, _ = medium
    sens = _read_sensitivity(out)
    qrels = _read_qrels(out)

    def share(topic, persona, grades=(2,)):
        docs = [d for d, g in qrels[topic].items() if g in grades]
        return sum(sens[persona][d] for d in docs) / len(docs)

    assert share("9", "john-snibert") >= 0.8       # patent dispute: litigation throughout
    assert share("15", "holly-palmer") >= 0.8      # tenure case: reviews of a colleague throughout
    assert share("9", "holly-palmer") <= 0.35      # ... but not for the other persona
    mixed = [t for t in qrels for p in labels.PERSONAS if 0.2 <= share(t, p, (1, 2)) <= 0.5]
    assert len(set(mixed)) >= 5
    safe = [t for t in qrels if all(share(t, p) <= 0.15 for p in labels.PERSONAS)]
    assert len(safe) >= 2


def test_vocabulary_mismatch_and_echo_distractors(medium):
    """Some relevant messages use codenames instead of the title words; some judged non-relevant
    messages repeat the title words in another context (relevance is not trivial for BM25)."""
    _, summary = medium
    assert summary["counts"]["oblique_relevant"] >= 0.2 * sum(t["rel2"] for t in summary["topics"].values()) * 0.5
    assert summary["counts"]["echo_distractors"] >= len(summary["topics"]) * 2


def test_obliquify_rewrites_title_words_consistently():
    import random
    from sasc_desktop.engine.demo.generator import obliquify
    from sasc_desktop.engine.demo.topics import BY_ID
    t = BY_ID["1"]
    chosen: dict = {}
    text = "Falcon launch is late. The Falcon launch deck, falconry and launches stay."
    out = obliquify(text, t, random.Random(3), chosen)
    assert "Falcon launch" not in out and "falconry" in out and "launches" in out
    assert set(chosen) == {"falcon", "launch"}
    assert out.count(chosen["falcon"]) == 2          # one alias per word within a message


# --- people -----------------------------------------------------------------------------------
def test_cast_is_large_enough():
    internal = [p for p in people.INTERNAL if p.style.client != "system"]
    assert len(internal) >= 40
    assert len({p.email for p in people.ALL}) == len(people.ALL)
    kinds = {p.dept for p in people.EXTERNAL}
    assert {"family", "TechWire", "Regulator", "Fabricor"} <= kinds
    for p in internal:
        assert p.title and p.dept and p.style.greetings and p.style.signoffs


def test_senders_include_internal_and_external_people(parsed_small):
    senders = collections.Counter(msg["From"].addresses[0].domain for _, _, msg in parsed_small)
    assert senders[people.ORG_DOMAIN] > len(parsed_small) / 3
    assert len(senders) >= 6


# --- mailboxes and MIME -----------------------------------------------------------------------
def _body_text(msg) -> str:
    texts = []
    for part in msg.walk():
        if part.get_content_maintype() == "text" and part.get_content_disposition() != "attachment":
            texts.append(part.get_content())
    return "\n".join(texts)


def test_every_message_parses_with_a_body(parsed_small):
    for path, raw, msg in parsed_small:
        assert not msg.defects, (path, msg.defects)
        for part in msg.walk():
            assert not [d for d in part.defects
                        if not isinstance(d, email.errors.InvalidBase64PaddingDefect)], (path, part.defects)
        assert msg["Message-ID"] and msg["Date"] and msg["From"] and msg["Subject"] is not None
        assert len(_body_text(msg).strip()) > 10, (path, msg["Message-ID"])


def test_mbox_entries_are_mboxrd(small):
    out, summary = small
    n_entries = 0
    for path in sorted((out / "mail").glob("*/*.mbox")):
        data = path.read_bytes()
        entries = re.split(rb"\n(?=From )", data)
        n_entries += len(entries)
        for entry in entries:
            first = entry.split(b"\n", 1)[0]
            assert re.fullmatch(rb"From \S+@\S+ [A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}", first), first
    assert n_entries == summary["counts"]["message_copies"]


def test_from_lines_in_bodies_are_quoted():
    from sasc_desktop.engine.demo import mime
    import datetime as dt
    data = b"Subject: x\n\nhello\nFrom the lab\n>From quoted\nnot From here\n"
    entry = mime.mboxrd_entry("a@b.example", dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), data)
    assert entry.startswith(b"From a@b.example Thu Jan  2 03:04:05 2020\n")
    assert b"\n>From the lab\n>>From quoted\nnot From here\n" in entry


def test_mime_variety(parsed_small):
    c = collections.Counter()
    for _, raw, msg in parsed_small:
        ctype = msg.get_content_type()
        c[ctype] += 1
        for part in msg.walk():
            c["part:" + part.get_content_type()] += 1
            cte = (part.get("Content-Transfer-Encoding") or "").lower()
            c["cte:" + cte] += 1
            if part.get_content_disposition() == "attachment":
                c["attachment"] += 1
        head = raw.split(b"\n\n", 1)[0]
        if re.search(rb"^Subject: =\?(utf-8|iso-8859-1)\?", head, re.M | re.I):
            c["rfc2047_subject"] += 1
        if re.search(rb"=\?iso-8859-1\?", head, re.I):
            c["latin1_header"] += 1
        if msg["In-Reply-To"]:
            c["in_reply_to"] += 1
        if msg["Bcc"]:
            c["bcc"] += 1
        if msg["X-Priority"] or msg["Importance"] or msg["Sensitivity"]:
            c["priority"] += 1
        subj = str(msg["Subject"])
        if subj.startswith(("Re:", "RE:")) and not msg["In-Reply-To"]:
            c["subject_only_reply"] += 1
        if subj.startswith(("Fwd:", "FW:")):
            c["forward"] += 1
    assert c["multipart/alternative"] >= 10
    assert c["text/html"] >= 3                   # HTML-only messages
    assert c["text/plain"] >= 30
    assert c["multipart/mixed"] >= 5
    assert c["attachment"] >= 5
    assert c["part:text/csv"] >= 1
    assert c["part:application/pdf"] >= 1
    assert c["part:message/rfc822"] >= 1
    assert c["cte:base64"] >= 5
    assert c["cte:quoted-printable"] >= 20
    assert c["rfc2047_subject"] >= 1
    assert c["latin1_header"] >= 1
    assert c["in_reply_to"] >= 20
    assert c["subject_only_reply"] >= 1
    assert c["forward"] >= 3
    assert c["bcc"] >= 1
    assert c["priority"] >= 1


def test_timezones_and_date_range(parsed_small):
    offsets = collections.Counter()
    years = set()
    for _, _, msg in parsed_small:
        d = msg["Date"].datetime
        offsets[d.utcoffset()] += 1
        years.add(d.year)
    assert len(offsets) >= 4
    assert len(years) >= 2


def test_duplicates_across_sent_and_inbox_are_identical(parsed_small):
    copies = collections.defaultdict(list)
    for path, raw, msg in parsed_small:
        copies[msg["Message-ID"]].append((path, raw))
    dups = {k: v for k, v in copies.items() if len(v) > 1}
    assert dups
    sent_and_inbox = 0
    for mid, places in dups.items():
        raws = {re.sub(rb"(?m)^X-Folder: .*\n", b"", raw, count=1) for _, raw in places}
        assert len(raws) == 1, mid       # the same but for the folder each copy names
        folders = [p.rsplit("/", 1)[1] for p, _ in places]
        if "sent.mbox" in folders and any(f in ("inbox.mbox", "projects.mbox") for f in folders):
            sent_and_inbox += 1
    assert sent_and_inbox >= 5
    # the sender's copy is in the sender's own sent folder
    for mid, places in dups.items():
        for path, raw in places:
            if path.endswith("sent.mbox"):
                msg = email.message_from_bytes(raw, policy=policy.default)
                owner = path.split("/")[1]
                assert msg["From"].addresses[0].addr_spec == people.BY_KEY[owner].email


def test_every_copy_names_its_own_folder_one_way(parsed_small):
    """X-Folder is in every copy and names the mbox the copy is in, one spelling per folder."""
    names = {"inbox.mbox": "Inbox", "sent.mbox": "Sent Items", "projects.mbox": "Projects"}
    spellings = collections.defaultdict(set)
    for path, raw, msg in parsed_small:
        _, custodian, mbox = path.split("/")
        p = people.BY_KEY[custodian]
        assert msg.get_all("X-Folder") == [f"\\{p.last}_{p.first}\\{names[mbox]}"], path
        spellings[path].add(msg["X-Folder"])
    assert all(len(v) == 1 for v in spellings.values())
    assert len({next(iter(v)) for v in spellings.values()}) == len(spellings)


def test_threads_quote_their_parent(parsed_small):
    by_id = {msg["Message-ID"]: msg for _, _, msg in parsed_small}

    def base(subject) -> str:
        return re.sub(r"^((Re|RE|Fwd|FW): )+", "", str(subject))

    checked = quoted = 0
    for msg in by_id.values():
        parent = by_id.get(msg["In-Reply-To"] or "")
        if parent is None:
            continue
        assert str(msg["Subject"]).startswith(("Re: ", "RE: "))
        assert base(msg["Subject"]) == base(parent["Subject"])
        assert parent["Message-ID"] in (msg["References"] or "")
        text = _body_text(msg)
        if "wrote:" in text or "-----Original Message-----" in text:
            quoted += 1
        checked += 1
    assert checked >= 10
    assert quoted >= 0.6 * checked


# --- progress and cancellation ----------------------------------------------------------------
def test_progress_is_reported_and_cancellable(tmp_path):
    seen = []
    generate(tmp_path / "p", n_messages=120, progress=Progress(lambda d, t, m: seen.append((d, t))))
    assert seen[0] == (0, 120) and (120, 120) in seen and len(seen) > 3

    prog = Progress(lambda d, t, m: prog.cancel() if d >= 10 else None)
    with pytest.raises(Cancelled):
        generate(tmp_path / "c", n_messages=500, progress=prog)


def test_rejects_bad_n(tmp_path):
    from sasc_desktop.engine.errors import InputError
    with pytest.raises(InputError):
        generate(tmp_path, n_messages=0)


# --- helpers and resources --------------------------------------------------------------------
def test_pii_helpers():
    import random
    rng = random.Random(1)
    for _ in range(200):
        assert pii.luhn_ok(pii.card_number(rng))
        assert not pii.luhn_ok(pii.non_luhn_number(rng))
        assert pii.iban_ok(pii.iban(rng))
        r = pii.routing_number(rng)
        d = list(map(int, r))
        assert (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10 == 0
        assert re.fullmatch(r"\d{3}-\d{2}-\d{4}", pii.ssn(rng))
    assert pii.luhn_ok("4111 1111 1111 1111") and not pii.luhn_ok("4111 1111 1111 1112")


def test_persona_cards():
    cards = json.loads((REPO / "resources" / "personas.json").read_text(encoding="utf-8"))
    ids = [c["id"] for c in cards]
    assert ids == ["john-snibert", "holly-palmer", "dana-whitfield"]
    fields = {"id", "name", "nickname", "occupation", "institution", "background", "email_use", "why_useful",
              "audience", "pain_points", "sensitive_reasons", "description"}
    for c in cards:
        assert set(c) == fields
        assert c["pain_points"] and all(1 <= r <= 8 for r in c["sensitive_reasons"])
    by_id = {c["id"]: c for c in cards}
    for persona in labels.PERSONAS:
        assert by_id[persona]["sensitive_reasons"] == labels.persona_reasons(persona)
    assert by_id["john-snibert"]["sensitive_reasons"] != by_id["holly-palmer"]["sensitive_reasons"]


def test_demo_package_does_not_import_qt():
    code = ("import sys, sasc_desktop.engine.demo as d; "
            "bad = [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'sasc_desktop.gui'))]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
