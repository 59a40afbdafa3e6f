"""Model files: versioned, atomic, cached until the file changes (even within one clock tick)."""
import os
import pickle

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.project.modelfile import read_model_file, write_model_file


def _read(path):
    return read_model_file(path, "fmt", 1, "test model", "retrain it")


def test_cached_until_replaced_even_with_the_same_mtime(tmp_path):
    path = tmp_path / "m.bin"
    write_model_file(path, "fmt", 1, {"w": [1, 2, 3]})
    first = _read(path)
    assert first["w"] == [1, 2, 3] and _read(path) is first          # cached
    ns = path.stat().st_mtime_ns
    # another writer replaces the file (same size, same modification time: new inode)
    tmp = tmp_path / "other.bin"
    tmp.write_bytes(pickle.dumps({"format": "fmt", "version": 1, "w": [9, 9, 9]}, protocol=5))
    os.utime(tmp, ns=(ns, ns))
    tmp.replace(path)
    assert path.stat().st_mtime_ns == ns
    assert _read(path)["w"] == [9, 9, 9]
    # rewritten in place with the same mtime but another size
    path.write_bytes(pickle.dumps({"format": "fmt", "version": 1, "w": list(range(50))}, protocol=5))
    os.utime(path, ns=(ns, ns))
    assert _read(path)["w"] == list(range(50))


def test_foreign_damaged_and_other_version_files_are_refused(tmp_path):
    path = tmp_path / "m.bin"
    path.write_bytes(b"not a pickle")
    with pytest.raises(ProjectError, match="damaged.*retrain it"):
        _read(path)
    path.write_bytes(pickle.dumps({"format": "other", "version": 1}))
    with pytest.raises(ProjectError, match="is not a SASC test model file"):
        _read(path)
    path.write_bytes(pickle.dumps({"format": "fmt", "version": 7}))
    with pytest.raises(ProjectError, match="version 7, this SASC Desktop reads version 1; retrain it"):
        _read(path)


def test_an_unreadable_path_is_a_project_error_and_a_missing_one_is_not(tmp_path):
    (tmp_path / "adir").mkdir()
    with pytest.raises(ProjectError, match="cannot be read.*retrain it"):
        read_model_file(tmp_path / "adir", "fmt", 1, "test model", "retrain it")
    with pytest.raises(FileNotFoundError):  # callers look the name up again
        read_model_file(tmp_path / "nothing", "fmt", 1, "test model", "retrain it")
