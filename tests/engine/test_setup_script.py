"""packaging/setup.sh, the README's two commands, without installing anything: the checks it
makes before it installs (its argument, the interpreter's version) are run for real; the
steps after them run against fakes that record what they were asked (apt, dpkg, sudo, and an
interpreter that creates no venv and installs nothing), so no test needs the network, root
or minutes. The real install is checked by hand on a clone (see the commit messages)."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "packaging" / "setup.sh"

pytestmark = pytest.mark.skipif(os.name != "posix" or shutil.which("bash") is None,
                                reason="setup.sh is a bash script for Debian/Ubuntu")


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def sandbox(tmp_path):
    """Fakes first on PATH: sudo and apt-get record their call and fail (nothing may be
    installed), dpkg-query says every package is installed (no apt step)."""
    bin_ = tmp_path / "fakebin"
    bin_.mkdir()
    log = tmp_path / "calls.log"
    for name in ("sudo", "apt-get"):
        _script(bin_ / name, f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit 1\n')
    _script(bin_ / "dpkg-query", "#!/bin/sh\nprintf 'install ok installed'\n")
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ.get('PATH', '')}",
               SASC_VENV=str(tmp_path / "venv"), TMPDIR=str(tmp_path))
    env.pop("PYTHON", None)
    return {"tmp": tmp_path, "env": env, "log": log, "venv": tmp_path / "venv"}


def setup_sh(sandbox, *args, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SETUP), *args], env=dict(sandbox["env"], **env), capture_output=True,
                          text=True, timeout=120)


def calls(sandbox) -> list[str]:
    return sandbox["log"].read_text().splitlines() if sandbox["log"].exists() else []


@pytest.mark.parametrize("arg", ["-h", "--help"])
def test_help_prints_the_modes_and_installs_nothing(sandbox, arg):
    r = setup_sh(sandbox, arg)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: packaging/setup.sh [run [APP ARGS...] | test [PYTEST ARGS...] | -h | --help]")
    for line in ("(no argument)      install only", "run [APP ARGS]     install, then start the app",
                 "test [PYTEST ARGS] install, then run the engine suite", "PYTHON ", "SASC_VENV "):
        assert line in r.stdout
    assert r.stderr == ""
    assert not sandbox["venv"].exists() and calls(sandbox) == []


@pytest.mark.parametrize("arg", ["tset", "--hlep", "install", "-x"])
def test_a_wrong_argument_exits_2_before_anything_is_installed(sandbox, arg):
    r = setup_sh(sandbox, arg)
    assert r.returncode == 2
    assert r.stderr.startswith(f"setup: unknown argument: {arg}\nusage: packaging/setup.sh ")
    assert r.stdout == ""
    assert not sandbox["venv"].exists() and calls(sandbox) == []
