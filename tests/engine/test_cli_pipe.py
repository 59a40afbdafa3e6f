"""`sasc ... | head`: a reader that goes away stops the command quietly, with no traceback."""
import subprocess
import sys

from sasc_desktop.engine.session import Session


def test_closed_stdout_pipe_is_not_an_error(tmp_path):
    Session.create(tmp_path / "proj").close()
    p = subprocess.Popen([sys.executable, "-m", "sasc_desktop.cli", "stats", str(tmp_path / "proj")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before the command has imported anything
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err
