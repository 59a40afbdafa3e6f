"""Shared test setup: Qt offscreen, every project and setting under tmp_path, and (with
SASC_BLOCK_QT=1) PySide6 made unimportable to prove the engine runs without it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A test run started as a background job of a script (as CI may start it) inherits Ctrl+C
# ignored, and so would every process it starts; the Ctrl+C tests press it as a user at a
# terminal does, so the run takes it as a terminal would (tests of the ignored case set it).
import signal  # noqa: E402
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

if os.environ.get("SASC_BLOCK_QT") == "1":
    class _BlockQt:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "pytestqt"):
                raise ModuleNotFoundError(f"No module named {name!r} (blocked: SASC_BLOCK_QT=1)", name=name)
            return None

    sys.meta_path.insert(0, _BlockQt())

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """Nothing a test does may touch the user's real settings or projects."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("SASC_CONFIG_DIR", str(home / ".config" / "sasc-desktop"))


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real mail corpora not found at {SHARED_DATA} (only in the development workplace)")
    return SHARED_DATA
