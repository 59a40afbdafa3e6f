"""A damaged search index is an IndexDamagedError (a ProjectError naming the index and saying to
run 'sasc reindex'), never a traceback: found on opening where reading starts (the table of
contents, each segment's term index, postings, stored fields, field lengths), and when a search
reads damage deeper inside a file. SearchIndex.recreate keeps the files it is told to keep (the
import lock the caller holds). Real Whoosh index of real mail."""
from __future__ import annotations

import os
import shutil

import pytest
from mailfactory import ingested_project

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.index.search_index import IndexDamagedError, SearchIndex

MAILS = [dict(message_id=f"<d{i}@x>", subject=f"meeting {i}" if i % 2 else f"lunch {i}",
              body="the gas price and the pipeline budget" if i % 3 == 0 else "weather report") for i in range(9)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("damage"), MAILS)
    path = s.paths.index
    s.close()
    return path


@pytest.fixture
def copy(built, tmp_path):
    target = tmp_path / "ix"
    shutil.copytree(built, target)
    return target


def one(folder, pattern):
    (found,) = folder.glob(pattern)
    return found


def reindex_hint(path, why):
    return f"the search index at {path} is damaged or missing ({why}); rebuild it with 'sasc reindex'"


def test_a_whole_index_opens_and_searches(copy):
    ix = SearchIndex(copy, create_missing=False)
    assert ix.search("pipeline")[1] == 3
    ix.close()


@pytest.mark.parametrize("pattern, how, why", [
    ("_MAIN_*.toc", 100, "UnpicklingError: pickle data was truncated"),
    ("_MAIN_*.toc", 0, "TypeError: ord() expected a character, but string of length 0 found"),
    ("_MAIN_*.toc", "zero", "IndexError: Index was created on different architecture: saved int = 0, this computer = 4"),
    ("MAIN_*.pst", 0, "Exception: Block tag error b''"),
    ("MAIN_*.pst", "zero", "Exception: Block tag error b'\\x00\\x00\\x00\\x00'"),
    ("MAIN_*.trm", 0, "FileFormatError: Unknown file header b''"),
    ("MAIN_*._subject_len.col", "delete", "FileNotFoundError: the file of the 'subject' field's lengths is missing"),
    ("MAIN_*._body_len.col", "zero", "ValueError: the file of the 'body' field's lengths is empty"),
])
def test_damage_where_reading_starts_is_found_on_opening(copy, pattern, how, why):
    """Whoosh's own errors (exists_in opened the index outside any handler: TypeError,
    UnpicklingError, 'different architecture', 'Block tag error' on the first search) are one
    IndexDamagedError saying what was found."""
    f = one(copy, pattern)
    if how == "delete":
        f.unlink()
    elif how == "zero":
        f.write_bytes(bytes(f.stat().st_size))
    else:
        os.truncate(f, how)
    with pytest.raises(IndexDamagedError) as err:
        SearchIndex(copy)
    assert isinstance(err.value, ProjectError)
    assert (str(err.value), err.value.why, err.value.missing) == (reindex_hint(copy, why), why, False)


def test_no_index_is_made_or_refused_as_asked(copy, tmp_path):
    one(copy, "_MAIN_*.toc").unlink()
    with pytest.raises(IndexDamagedError) as err:
        SearchIndex(copy, create_missing=False)
    assert err.value.missing and str(err.value) == reindex_hint(copy, "there is no index in its folder")
    ix = SearchIndex(tmp_path / "new")   # (the default: made)
    assert ix.doc_count() == 0
    ix.close()


def test_damage_a_search_reads_is_an_index_damaged_error(copy):
    """The subject lengths file cut short (a field's lengths are one byte per document up to the
    last with a length: a shorter file looks whole on opening): a search that reads it through
    Whoosh (a phrase) says the index is damaged, not a TypeError traceback."""
    os.truncate(one(copy, "MAIN_*._subject_len.col"), 3)
    ix = SearchIndex(copy, create_missing=False)
    with pytest.raises(IndexDamagedError) as err:
        ix.search('subject:meeting OR "gas price"')
    assert str(err.value) == reindex_hint(copy, "TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'")
    ix.close()


def test_recreate_keeps_the_files_it_is_told_to(copy):
    lock = copy / "sasc-import.lock"
    lock.write_bytes(b"")
    (copy / "stray").mkdir()
    inode = lock.stat().st_ino
    ix = SearchIndex.recreate(copy, keep=("sasc-import.lock",))
    assert ix.doc_count() == 0
    assert lock.stat().st_ino == inode
    names = sorted(p.name for p in copy.iterdir())
    assert "stray" not in names and "sasc-import.lock" in names
    assert not any(n.startswith("MAIN_") and not n == "MAIN_WRITELOCK" for n in names)
    ix.close()
