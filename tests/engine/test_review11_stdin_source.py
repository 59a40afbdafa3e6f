"""Judgments read from a pipe (``--qrels /dev/stdin``) record a stable source: "stdin". The
resolved path of /dev/stdin is ``/proc/<pid>/fd/pipe:[inode]``, another name every run, so a
corrected second import from stdin was refused as changing "another import's" judgments, named
by that meaningless path. A named pipe records its path as typed (made absolute, not resolved).
Real enron-categories-dev mail, the real CLI in a child process fed through a real pipe."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[2]


def _sasc(*args: str, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _project(shared_data, tmp_path) -> tuple[Path, list[str]]:
    mail = tmp_path / "mail"
    mail.mkdir()
    for txt in sorted((shared_data / "enron-categories-dev" / "1").glob("*.txt"))[:5]:
        (mail / txt.name).write_bytes(txt.read_bytes())
    root = tmp_path / "proj"
    with Session.create(root) as s:
        s.ingest([mail], workers=0)
        docs = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id")]
    assert len(docs) == 5
    return root, docs


def _stored(root) -> list[tuple]:
    with Session.open(root) as s:
        return [tuple(r) for r in s.store.con.execute("SELECT topic, doc_id, rel, source FROM qrels ORDER BY doc_id")]


def test_a_corrected_import_from_stdin_is_the_same_source(shared_data, tmp_path):
    root, docs = _project(shared_data, tmp_path)
    first = "".join(f"7 0 {d} {i % 2}\n" for i, d in enumerate(docs))
    r = _sasc("judgments", "import", str(root), "--qrels", "/dev/stdin", stdin=first)
    assert r.returncode == 0, r.stderr
    assert _stored(root) == [("7", d, i % 2, "stdin") for i, d in enumerate(docs)]
    corrected = first.replace(f"7 0 {docs[0]} 0", f"7 0 {docs[0]} 2")
    for typed in ("/dev/stdin", "/dev/fd/0"):           # (the same stdin however it is named)
        r = _sasc("judgments", "import", str(root), "--qrels", typed, stdin=corrected)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "0 personas, 0 topics, 5 qrels, 0 sensitivity, 0 reasons imported\n" + (
            "changed: 1 stored judgments\n" if typed == "/dev/stdin" else "")
        assert _stored(root) == [("7", d, 2 if i == 0 else i % 2, "stdin") for i, d in enumerate(docs)]
    # a file changing them is another import, and the refusal names stdin
    other = tmp_path / "other.qrels"
    other.write_text(f"7 0 {docs[1]} 0\n")
    r = _sasc("judgments", "import", str(root), "--qrels", str(other))
    assert r.returncode == 2
    assert r.stderr == ("sasc: error: this import would change 1 judgment another import made (1 relevance grade from "
                        "stdin); nothing was imported. To replace them, import again with --replace.\n")


def test_a_named_pipe_records_its_path_as_typed(shared_data, tmp_path):
    root, docs = _project(shared_data, tmp_path)
    fifo = tmp_path / "judged.fifo"
    os.mkfifo(fifo)
    for grade in (1, 0):
        writer = threading.Thread(target=lambda g=grade: fifo.write_text(f"3 0 {docs[0]} {g}\n"))
        writer.start()
        r = _sasc("judgments", "import", str(root), "--qrels", "judged.fifo", cwd=tmp_path)
        writer.join(timeout=60)
        assert r.returncode == 0, r.stderr
        assert _stored(root) == [("3", docs[0], grade, str(fifo))]
    assert J.source_of(fifo) == str(fifo)
    assert J.source_of(tmp_path / "." / "judged.fifo") == str(fifo)


def test_stdin_given_a_file_by_the_shell_is_stdin_too(shared_data, tmp_path):
    """The reviewer's case: the same import through a pipe, then corrected through '< file', was
    refused (the redirect's source was the file's path, not "stdin")."""
    root, docs = _project(shared_data, tmp_path)
    first = "".join(f"7 0 {d} 1\n" for d in docs)
    assert _sasc("judgments", "import", str(root), "--qrels", "/dev/stdin", stdin=first).returncode == 0
    corrected = tmp_path / "corrected.qrels"
    corrected.write_text(first.replace(f"7 0 {docs[0]} 1", f"7 0 {docs[0]} 2"))
    with open(corrected) as f:
        r = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "judgments", "import", str(root), "--qrels",
                            "/dev/stdin"], stdin=f, capture_output=True, text=True, timeout=120, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert _stored(root) == [("7", d, 2 if i == 0 else 1, "stdin") for i, d in enumerate(docs)]
