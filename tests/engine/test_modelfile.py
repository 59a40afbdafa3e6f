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


def test_a_folder_that_is_a_file_is_a_project_error_naming_it(tmp_path):
    blocker = tmp_path / "models"
    blocker.write_bytes(b"a file, not a folder")
    with pytest.raises(ProjectError) as err:
        write_model_file(blocker / "m.bin", "fmt", 1, {"w": 1}, what="test model")
    assert str(err.value) == (f"the test model cannot be saved: {blocker} is not a folder; "
                              "move what is there away and try again")
    assert blocker.read_bytes() == b"a file, not a folder"


def test_reading_under_a_file_where_the_folder_should_be_says_so(tmp_path):
    """Not 'cannot be read (Not a directory); retrain it': retraining would fail on the file too."""
    blocker = tmp_path / "models"
    blocker.write_bytes(b"a file, not a folder")
    with pytest.raises(ProjectError) as err:
        read_model_file(blocker / "m.bin", "fmt", 1, "test model", "retrain it")
    assert str(err.value) == (f"the test model cannot be read: {blocker} is a file where the project's models folder "
                              "should be; move what is there away and try again")
    assert blocker.read_bytes() == b"a file, not a folder"


def test_a_read_only_folder_is_a_project_error_and_keeps_the_old_file(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    write_model_file(folder / "m.bin", "fmt", 1, {"w": [1]})
    import shutil
    import subprocess
    os.chmod(folder, 0o555)
    immutable = False
    try:
        if os.access(folder, os.W_OK):  # root: a mode does not stop it, the immutable attribute does (EPERM)
            immutable = shutil.which("chattr") is not None and subprocess.run(
                ["chattr", "+i", str(folder)], capture_output=True).returncode == 0
            if not immutable:
                pytest.skip("running as root without chattr +i here: nothing stops this process writing")
        with pytest.raises(ProjectError) as err:
            write_model_file(folder / "m.bin", "fmt", 1, {"w": [2]}, what="test model")
        assert str(err.value) == (f"the test model cannot be saved: the folder {folder} is read-only (permission "
                                  "denied); make it writable and try again")
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        os.chmod(folder, 0o755)
    assert sorted(p.name for p in folder.iterdir()) == ["m.bin"] and _read(folder / "m.bin")["w"] == [1]


def test_the_message_for_each_kind_of_write_failure(tmp_path):
    import errno
    from sasc_desktop.engine.project.modelfile import unwritable_message
    f = tmp_path / "models"
    f.mkdir()
    cases = {errno.EROFS: f"the folder {f} is on a read-only file system; make it writable and try again",
             errno.EACCES: f"the folder {f} is read-only (permission denied); make it writable and try again",
             errno.ENOSPC: f"the disk holding {f} is full; free some space and try again",
             errno.EIO: f"the folder {f} cannot be written (Input/output error); make it writable and try again"}
    for code, text in cases.items():
        assert unwritable_message(f, OSError(code, os.strerror(code)), "x cannot be saved") == "x cannot be saved: " + text
