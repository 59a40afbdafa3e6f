"""What the search index holds for a message is recorded per INDEX_VERSION, so analysis cannot
change without the version: opening a project rebuilds its index only when the stored version
differs. Commit abe5727 changed the folder: field's analysis (every run of the path's parts)
under the version already given out, so projects indexed between ce09804 and it kept the exact
path and `folder:inbox` found nothing there until a manual `sasc reindex`.

The fingerprint is the index fields (as the importer and `sasc reindex` write them) of probe
messages chosen to cross every analysis rule, the folder field's index-time tokens, and the
schema's field names and types. When this test fails: if what is indexed really changed, bump
INDEX_VERSION in sasc_desktop/engine/index/schema.py (say what changed in its comment) and record
the new fingerprint under the new version; never change a recorded version's fingerprint."""
from __future__ import annotations

import hashlib
import json

from sasc_desktop.engine.index.schema import INDEX_VERSION, build_schema
from sasc_desktop.engine.index.search_index import document_fields

FINGERPRINTS = {
    7: "d4a50b4c0edac2631d68f0c652d2091c1e17e55cb3e28785324bfc7a7aee0dc7",
}

PROBES = [
    dict(subject="Re: Café budget — 𝐁𝐔𝐃𝐆𝐄𝐓 résumé", body="The Straße meeting; thé and the cafe\u0301.\n"
         "Call 713-853-1234, e-mail drew.fossum@enron.com http://x.example/a?b=c " + "w" * 45 + " a I to",
         attachment_text="Attached: Q3 gas volumes (v2.1) ガス й", sender="José Núñez <jose@corp.example>",
         recipients="Drew Fossum <drew.fossum@enron.com>", cc="ann@other.org", bcc="", from_addr="jose@corp.example",
         recipient_addrs=["drew.fossum@enron.com", "ann@other.org"], folder="mail\\Palmer_Holly\\Inbox\\Ünïcode",
         date="2001-05-03T09:00:00-07:00"),
    dict(subject="", body="", attachment_text="", sender="", recipients="", cc="", bcc="", from_addr="",
         recipient_addrs=[], folder="", date=None, ts=None),
    dict(subject="x" * 300, body="word " * 50, attachment_text="", sender="a@b.c", recipients="", cc="",
         bcc="d@e.f", from_addr="a@b.c", recipient_addrs=["d@e.f"], folder="/Sent Items/2001/",
         date="2001-12-31T23:30:00+00:00"),
]


def _row(i: int, probe: dict) -> dict:
    row = {"id": i + 1, "doc_id": f"probe{i}@x", "thread_id": f"probe{i}@x", "ts": None, **probe}
    return row


class _Row(dict):
    def keys(self):  # what sqlite3.Row offers document_fields
        return list(super().keys())


def _plain(value):
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, float):
        return repr(value)
    return value if value is None or isinstance(value, (int, str, bool)) else repr(value)


def fingerprint() -> str:
    schema = build_schema()
    folder = schema["folder"].analyzer
    record = {
        "schema": [(name, type(schema[name]).__name__, type(getattr(schema[name], "analyzer", None)).__name__)
                   for name in schema.names()],
        "docs": [_plain(document_fields(_Row(_row(i, p)))) for i, p in enumerate(PROBES)],
        "folder_tokens": [[t.text for t in folder(p["folder"], mode="index")] for p in PROBES],
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def test_what_is_indexed_is_the_one_recorded_for_this_index_version():
    assert INDEX_VERSION in FINGERPRINTS, (
        f"INDEX_VERSION {INDEX_VERSION} has no recorded fingerprint: record {fingerprint()!r} for it")
    assert fingerprint() == FINGERPRINTS[INDEX_VERSION], (
        "what the index holds for a message changed without an INDEX_VERSION bump: projects indexed "
        "before keep the old analysis. Bump INDEX_VERSION in sasc_desktop/engine/index/schema.py, then record "
        f"{fingerprint()!r} under the new version here")


def test_the_folder_rule_of_version_7_is_in_the_fingerprint():
    """The probes reach the rule that was changed without a bump."""
    folder = build_schema()["folder"].analyzer
    assert [t.text for t in folder("mail\\Palmer_Holly\\Inbox", mode="index")] == [
        "mail", "mail/palmer_holly", "mail/palmer_holly/inbox", "palmer_holly", "palmer_holly/inbox", "inbox"]
