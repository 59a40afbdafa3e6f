"""A project's own files are never read as mail: Whoosh's index/MAIN_*.pst are not Outlook files.
Importing a folder that holds a project skips the project's files with a reason; importing the
project folder itself (or one of its own folders) is refused with a clear message. Real projects
(SQLite + Whoosh), real mail, the real CLI."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.ingest.sources import NOT_PST
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]
WHAT = {"index": "its search index", "models": "its models", "exports": "its exports",
        "project.sqlite": "its database", "project.sqlite-wal": "its database", "project.sqlite-shm": "its database",
        "sasc-project.json": "its project file"}


def archive_with_project(tmp_path: Path) -> tuple[Path, Path]:
    """archive/ holding mail and the project archive/p, which already has mail in its index."""
    archive = tmp_path / "archive"
    (archive / "eml").mkdir(parents=True)
    (archive / "box.mbox").write_bytes(mbox([msg(message_id=f"<m{i}@x>", subject=f"mail {i}") for i in range(3)]))
    (archive / "eml" / "one.eml").write_bytes(msg(message_id="<e1@x>", subject="eml"))
    first = tmp_path / "first.mbox"
    first.write_bytes(mbox([msg(message_id="<f1@x>", subject="first")]))
    with Session.create(archive / "p") as s:
        s.ingest([first], workers=0)
    assert list((archive / "p" / "index").glob("MAIN_*.pst"))  # what was taken for Outlook files
    return archive, archive / "p"


def test_folder_holding_the_project_skips_its_files_with_reasons(tmp_path):
    archive, proj = archive_with_project(tmp_path)
    with Session.open(proj) as s:
        r = s.ingest([archive], workers=0)
        assert (r.ingested, r.duplicates) == (4, 0)
        skipped = {Path(x.source).name: x.reason for x in r.skipped}
        assert {"index", "models", "exports", "project.sqlite", "sasc-project.json"} <= set(skipped) <= set(WHAT)
        for name, reason in skipped.items():
            assert reason == f"part of the SASC project at {proj} ({WHAT[name]}); not mail"
        assert all(Path(x.source).parent == proj for x in r.skipped)
        assert {d["source"] for d in s.skipped()} == {x.source for x in r.skipped}
        assert s.stats()["messages"] == 5
        # accounted for: every entry the progress bar counted is ingested, a duplicate or skipped
        from sasc_desktop.engine.ingest.sources import count_messages
        assert count_messages(archive) == r.ingested + r.duplicates + len(r.skipped)
        again = s.ingest([archive], workers=0)
        assert (again.ingested, again.duplicates) == (0, 4)


def test_another_project_in_the_folder_is_skipped_too(tmp_path):
    archive, other = archive_with_project(tmp_path)
    with Session.create(tmp_path / "target") as s:
        r = s.ingest([archive], workers=0)
        assert r.ingested == 4
        assert {Path(x.source).parent for x in r.skipped} == {other}
        assert all(x.reason.startswith(f"part of the SASC project at {other} (") for x in r.skipped)


@pytest.mark.parametrize("inside", ["", "index", "models", "project.sqlite"])
def test_the_project_folder_itself_is_refused(tmp_path, inside):
    _, proj = archive_with_project(tmp_path)
    source = proj / inside if inside else proj
    with Session.open(proj) as s:
        with pytest.raises(InputError) as caught:
            s.ingest([source], workers=0)
        assert s.stats()["messages"] == 1 and len(s.stats()["sources"]) == 1
    if inside:
        assert str(caught.value) == f"{source} is part of this project ({WHAT[inside]}), not a mailbox"
    else:
        assert str(caught.value) == (f"{proj} is this project's own folder, not a mailbox: import the mailboxes "
                                     "themselves (its search index and database are never read as mail)")


def test_cli_refuses_the_project_folder(tmp_path):
    _, proj = archive_with_project(tmp_path)
    r = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "ingest", str(proj), str(proj)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"sasc: error: {proj} is this project's own folder, not a mailbox: import the "
                                "mailboxes themselves (its search index and database are never read as mail)")


def test_pst_named_files_that_are_not_pst_are_skipped(tmp_path):
    _, other = archive_with_project(tmp_path)
    folder = tmp_path / "copied"
    shutil.copytree(other / "index", folder / "whoosh")  # an index copied out of a project
    (folder / "note.eml").write_bytes(msg(message_id="<n@x>"))
    with Session.create(tmp_path / "target") as s:
        r = s.ingest([folder], workers=0)
        assert r.ingested == 1
        psts = sorted((folder / "whoosh").glob("*.pst"))
        assert psts and {(x.source, x.reason) for x in r.skipped if x.source.endswith(".pst")} == \
            {(str(p), NOT_PST) for p in psts}
        with pytest.raises(InputError) as caught:  # given on its own: a clear error
            s.ingest([psts[0]], workers=0)
        assert str(caught.value) == f"{psts[0]}: {NOT_PST}"


@pytest.mark.skipif(shutil.which("readpst") is not None, reason="needs readpst to be missing")
def test_a_pst_in_a_folder_without_readpst_is_skipped_and_the_rest_imported(tmp_path):
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "outlook.pst").write_bytes(b"!BDN" + b"\0" * 512)
    (folder / "a.eml").write_bytes(msg(message_id="<a@x>"))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([folder], workers=0)
    assert r.ingested == 1
    ((source, reason),) = [(x.source, x.reason) for x in r.skipped]
    assert source == str(folder / "outlook.pst") and reason.startswith("reading PST files needs the 'readpst' program")
