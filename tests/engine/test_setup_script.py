"""packaging/setup.sh, the README's two commands, without installing anything: the checks it
makes before it installs (its argument, the interpreter's version) are run for real; the
steps after them run against fakes that record what they were asked (apt, dpkg, sudo, and an
interpreter that creates no venv and installs nothing), so no test needs the network, root
or minutes. The real install is checked by hand on a clone (see the commit messages)."""
from __future__ import annotations

import os
import shlex
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


def fake_python(sandbox, name="python", version=None) -> Path:
    """An interpreter that records every call. With ``version`` it only prints that version
    (whatever it is asked); without, it is this test's interpreter for ``-c`` (Python >= 3.11,
    with pip) and fails ``-m venv`` / ``-m pip`` as Debian's python3 without python3-venv does
    (nothing is created or installed)."""
    log = sandbox["log"]
    if version:
        body = f'echo {version}\n'
    else:
        body = ('if [ "$1" = "-m" ]; then\n'
                '  echo "The virtual environment was not created successfully because ensurepip is not available." >&2\n'
                '  exit 1\n'
                'fi\n'
                f'exec "{sys.executable}" "$@"\n')
    return _script(sandbox["tmp"] / name, f'#!/bin/sh\necho "{name} $*" >> "{log}"\n{body}')


@pytest.mark.parametrize("version", ["3.10.12", "2.7.18", "garbage"])
def test_an_old_python_is_refused_before_anything_is_installed(sandbox, version):
    py = fake_python(sandbox, "python3.10", version=version)
    r = setup_sh(sandbox, PYTHON=str(py))
    assert r.returncode == 1
    assert r.stderr == f"setup: Python >= 3.11 needed; found {version} ({py}); set PYTHON=/path/to/python3.11\n"
    assert r.stdout == ""
    assert not sandbox["venv"].exists()
    assert calls(sandbox) == ["python3.10 -c import sys; print(\"%d.%d.%d\" % sys.version_info[:3])"]


def test_a_missing_python_is_refused_before_anything_is_installed(sandbox):
    missing = sandbox["tmp"] / "no-such-python3.11"
    r = setup_sh(sandbox, "run", PYTHON=str(missing))
    assert r.returncode == 1
    assert r.stderr == f"setup: Python >= 3.11 needed; found no {missing}; install it or set PYTHON=/path/to/python3.11\n"
    assert not sandbox["venv"].exists() and calls(sandbox) == []


def test_a_venv_a_failed_venv_creation_left_is_made_again_not_reused(sandbox):
    """Debian without python3-venv: `python3 -m venv` leaves bin/python without pip. Each run
    makes it again (--clear) and says which package is missing; it never goes on to pip."""
    venv = sandbox["venv"]
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _script(venv / "bin" / "python", f'#!/bin/sh\necho "venv-python $*" >> "{sandbox["log"]}"\n'
                                     'echo "No module named pip" >&2\nexit 1\n')
    py = fake_python(sandbox)
    r = setup_sh(sandbox, PYTHON=str(py))
    assert r.returncode == 1
    ver = "%d.%d.%d" % sys.version_info[:3]
    assert r.stdout.splitlines() == [f"setup: the virtual environment in {venv} is unusable (no pip, or Python < 3.11); "
                                     f"making it again with {py} ({ver})"]
    pkg = "python%d.%d-venv" % sys.version_info[:2]
    assert r.stderr.splitlines()[-1] == (f"setup: could not create a virtual environment with {py} ({ver}) in {venv}; "
                                         f"on Debian/Ubuntu install {pkg} (sudo apt-get install {pkg}) and run this again")
    made = [c for c in calls(sandbox) if c.startswith("python -m")]
    assert made == [f"python -m venv --clear {venv}"]  # no pip install
    assert not any(c.startswith(("sudo", "apt-get")) for c in calls(sandbox))


def test_a_folder_that_is_not_a_venv_is_never_cleared(sandbox):
    venv = sandbox["venv"]
    venv.mkdir()
    (venv / "notes.txt").write_text("mine")
    r = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)))
    assert r.returncode == 1
    assert r.stderr == (f"setup: {venv} is not a virtual environment and not empty; move it away or set SASC_VENV "
                        f"to another folder\n")
    assert (venv / "notes.txt").read_text() == "mine"
    assert not any(c.startswith("python -m") for c in calls(sandbox))


def installed_venv(sandbox, checkout: str, venv_recorded: str | None = None) -> Path:
    """A venv as an install leaves it: its python is this test's interpreter (pip, Python >=
    3.11, sasc_desktop), except that ``-m pip`` only records its call; the stamp records
    ``checkout`` and the venv."""
    venv = sandbox["venv"]
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _script(venv / "bin" / "python", f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then\n'
                                     f'  echo "venv-python $*" >> "{sandbox["log"]}"\n  exit 0\nfi\n'
                                     f'exec "{sys.executable}" "$@"\n')
    (venv / ".sasc-installed").write_text(f"checkout={checkout}\nvenv={venv_recorded or venv.resolve()}\n")
    return venv


def this_checkout_is_installed() -> bool:
    """Whether the interpreter running the tests imports sasc_desktop from this checkout (an
    editable install of it), as setup.sh asks the venv's python."""
    import sasc_desktop
    return Path(sasc_desktop.__file__).resolve().parents[1] == ROOT.resolve()


def test_a_checkout_moved_since_the_install_is_installed_again(sandbox):
    venv = installed_venv(sandbox, "/home/someone/old-place/sasc-desktop")
    r = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)))
    assert r.returncode == 0, r.stderr
    here = ROOT.resolve()
    assert (f"setup: installing sasc-desktop and its dependencies (installed from "
            f"/home/someone/old-place/sasc-desktop, not {here})") in r.stdout.splitlines()
    assert [c for c in calls(sandbox) if c.startswith("venv-python")] == \
        ["venv-python -m pip install -q --upgrade pip", "venv-python -m pip install -q -e .[dev]"]
    assert (venv / ".sasc-installed").read_text() == f"checkout={here}\nvenv={venv.resolve()}\n"
    assert not any(c.startswith("python -m") for c in calls(sandbox))  # the venv itself was fine


def test_a_venv_moved_since_it_was_made_is_made_again(sandbox):
    venv = installed_venv(sandbox, str(ROOT.resolve()), venv_recorded="/home/someone/old-place/sasc-desktop/.venv")
    py = fake_python(sandbox)
    r = setup_sh(sandbox, PYTHON=str(py))
    assert r.stdout.splitlines()[0] == (
        f"setup: the virtual environment in {venv} was made in /home/someone/old-place/sasc-desktop/.venv "
        f"(moved since: its scripts name that place); making it again with {py} ({'%d.%d.%d' % sys.version_info[:3]})")
    assert f"python -m venv --clear {venv}" in calls(sandbox)
    assert r.returncode == 1  # the fake cannot make one; a real python would, and pip would install


@pytest.mark.skipif(not this_checkout_is_installed(), reason="the test interpreter's sasc_desktop is another checkout's")
def test_an_install_for_this_checkout_is_not_repeated(sandbox):
    """... and the command it prints to start the app is quoted for a shell (a venv path with
    a space in it was printed as it is)."""
    sandbox["venv"] = sandbox["tmp"] / "my venv's place"
    installed_venv(sandbox, str(ROOT.resolve()))
    r = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)), SASC_VENV=str(sandbox["venv"]),
                 XDG_DATA_HOME=str(sandbox["tmp"] / "apps"))
    assert r.returncode == 0, r.stderr
    assert not any("-m pip" in c or "-m venv" in c for c in calls(sandbox))
    lead = "setup: done. Start the app with: "
    last = r.stdout.splitlines()[-1]
    assert last.startswith(lead)
    assert shlex.split(last[len(lead):]) == [str(sandbox["venv"] / "bin" / "sasc-desktop")]


def fake_pytest_venv(sandbox) -> Path:
    """An installed venv whose ``-m pytest`` runs no test: per suite, FAKE_ENGINE / FAKE_GUI
    say what it does: ``tests:failed:skipped:exit`` writes that junit XML and exits so,
    ``abort`` dies of SIGABRT (exit 134) before writing any, as a Qt crash does."""
    venv = installed_venv(sandbox, str(ROOT.resolve()))
    python = venv / "bin" / "python"
    real = python.read_text()
    _script(python, real.replace("#!/bin/sh\n", "#!/bin/sh\n" + f'''\
if [ "$1" = "-m" ] && [ "$2" = "pytest" ]; then
  echo "venv-python $*" >> "{sandbox["log"]}"
  for a; do
    case "$a" in --junitxml=*) xml="${{a#--junitxml=}}" ;; tests/engine) spec="$FAKE_ENGINE" ;; tests/gui) spec="$FAKE_GUI" ;; esac
  done
  if [ "$spec" = abort ]; then ulimit -c 0; kill -ABRT $$; fi
  IFS=: read -r n failed skipped rc <<EOF
$spec
EOF
  printf '<testsuites><testsuite name="pytest" tests="%s" failures="%s" errors="0" skipped="%s"/></testsuites>' \\
    "$n" "$failed" "$skipped" > "$xml"
  exit "$rc"
fi
''', 1))
    return venv


def run_tests(sandbox, engine: str, gui: str, *args) -> subprocess.CompletedProcess:
    fake_pytest_venv(sandbox)
    return setup_sh(sandbox, "test", *args, PYTHON=str(fake_python(sandbox)), FAKE_ENGINE=engine, FAKE_GUI=gui,
                    XDG_DATA_HOME=str(sandbox["tmp"] / "apps"))


def leftovers(sandbox) -> list[str]:
    return sorted(p.name for p in sandbox["tmp"].iterdir() if p.name.startswith("tmp."))


@pytest.mark.skipif(not this_checkout_is_installed(), reason="the test interpreter's sasc_desktop is another checkout's")
def test_the_test_mode_sums_both_suites_and_leaves_no_temporary_folder(sandbox):
    r = run_tests(sandbox, "120:0:3:0", "40:0:1:0", "-k", "x y")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "all suites: 156 passed, 0 failed, 4 skipped"
    ran = [c for c in calls(sandbox) if "-m pytest" in c]
    assert len(ran) == 2 and ran[0].endswith(" tests/engine -k x y") and ran[1].endswith(" tests/gui -k x y")
    assert leftovers(sandbox) == []


@pytest.mark.skipif(not this_checkout_is_installed(), reason="the test interpreter's sasc_desktop is another checkout's")
@pytest.mark.parametrize("engine,gui,code,lines", [
    ("1:0:0:0", "abort", 1, ["GUI suite did not finish (exit 134, killed by SIGABRT)",
                             "all suites: NOT FINISHED (the GUI suite stopped: exit 134, killed by SIGABRT); "
                             "counted before that: 1 passed, 0 failed, 0 skipped"]),
    ("abort", "5:1:1:1", 1, ["engine suite did not finish (exit 134, killed by SIGABRT)",
                             "all suites: NOT FINISHED (the engine suite stopped: exit 134, killed by SIGABRT); "
                             "counted before that: 3 passed, 1 failed, 1 skipped"]),
    ("7:0:0:2", "3:0:0:0", 1, ["engine suite did not finish (exit 2, interrupted)",
                               "all suites: NOT FINISHED (the engine suite stopped: exit 2, interrupted); "
                               "counted before that: 10 passed, 0 failed, 0 skipped"]),
    ("9:2:1:1", "3:0:0:0", 1, ["all suites: 9 passed, 2 failed, 1 skipped"]),
], ids=["gui-crash", "engine-crash", "interrupted", "failures"])
def test_a_suite_that_stops_early_is_named_and_never_summed_as_all_passed(sandbox, engine, gui, code, lines):
    """A Qt crash writes no junit file: the summary said 'all suites: 1 passed, 0 failed, 0
    skipped' (only the exit code was right)."""
    r = run_tests(sandbox, engine, gui)
    assert r.returncode == code
    assert r.stdout.splitlines()[-len(lines):] == lines
    assert leftovers(sandbox) == []


def exec_words(value: str) -> list[str]:
    """A desktop entry's Exec value read back as the Desktop Entry Specification says: the
    string escapes first, then %% and the quoting of arguments."""
    unescaped, i = "", 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value):
            unescaped += {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(value[i + 1], "\\" + value[i + 1])
            i += 2
        else:
            unescaped += value[i]
            i += 1
    words, word, quoted, i, text = [], None, False, 0, unescaped
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\" and text[i + 1] in '"`$\\':
                word += text[i + 1]
                i += 1
            elif c == '"':
                quoted = False
            elif c == "%" and text[i + 1] == "%":  # GLib expands %% inside quotes too
                word += "%"
                i += 1
            else:
                word += c
        elif c == '"':
            quoted, word = True, word or ""
        elif c == " ":
            if word is not None:
                words.append(word)
            word = None
        elif c == "%" and text[i + 1] == "%":
            word = (word or "") + "%"
            i += 1
        else:
            word = (word or "") + c
        i += 1
    assert not quoted
    return words + ([word] if word is not None else [])


@pytest.mark.skipif(not this_checkout_is_installed(), reason="the test interpreter's sasc_desktop is another checkout's")
@pytest.mark.parametrize("venv_name", ["venv", 'my "venv" $HOME `x` \\ 100% ; it\'s'])
def test_the_install_writes_a_menu_entry_and_its_icon(sandbox, venv_name):
    """Exec names the venv's sasc-desktop by its absolute path, quoted (the template's bare
    'sasc-desktop' needs the venv on PATH; gio launch failed); the icon goes to the hicolor
    theme of XDG_DATA_HOME; a second run changes nothing."""
    sandbox["venv"] = sandbox["tmp"] / venv_name
    installed_venv(sandbox, str(ROOT.resolve()))
    data = sandbox["tmp"] / "data home"
    r = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)), SASC_VENV=str(sandbox["venv"]), XDG_DATA_HOME=str(data))
    assert r.returncode == 0, r.stderr
    entry = data / "applications" / "sasc-desktop.desktop"
    icon = data / "icons" / "hicolor" / "scalable" / "apps" / "sasc-desktop.svg"
    assert f"setup: menu entry {entry} and its icon installed" in r.stdout.splitlines()
    assert icon.read_bytes() == (ROOT / "resources" / "icons" / "sasc-desktop.svg").read_bytes()
    template = (ROOT / "packaging" / "sasc-desktop.desktop").read_text().splitlines()
    written = entry.read_text().splitlines()
    assert [w for w in written if not w.startswith("Exec=")] == [t for t in template if not t.startswith("Exec=")]
    (exec_line,) = [w for w in written if w.startswith("Exec=")]
    assert exec_words(exec_line[len("Exec="):]) == [str(sandbox["venv"].resolve() / "bin" / "sasc-desktop")]
    assert "Icon=sasc-desktop" in written
    stamp = entry.stat().st_mtime_ns, icon.stat().st_mtime_ns
    again = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)), SASC_VENV=str(sandbox["venv"]), XDG_DATA_HOME=str(data))
    assert again.returncode == 0 and "menu entry" not in again.stdout
    assert (entry.stat().st_mtime_ns, icon.stat().st_mtime_ns) == stamp


@pytest.mark.skipif(not this_checkout_is_installed(), reason="the test interpreter's sasc_desktop is another checkout's")
def test_a_data_folder_that_cannot_be_written_is_a_warning_not_a_failure(sandbox):
    installed_venv(sandbox, str(ROOT.resolve()))
    blocked = sandbox["tmp"] / "a-file"
    blocked.write_text("")  # nothing can be made below a file, even by root
    r = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)), XDG_DATA_HOME=str(blocked / "share"))
    assert r.returncode == 0
    assert r.stderr.startswith(f"setup: warning: no menu entry installed in {blocked / 'share'} (")
    assert r.stdout.splitlines()[-1].startswith("setup: done. Start the app with: ")


def test_the_desktop_entry_template_names_the_command_and_the_icon():
    lines = (ROOT / "packaging" / "sasc-desktop.desktop").read_text().splitlines()
    assert lines[0] == "[Desktop Entry]"
    assert "Exec=sasc-desktop" in lines and "Icon=sasc-desktop" in lines  # what setup.sh replaces and installs
    assert (ROOT / "resources" / "icons" / "sasc-desktop.svg").is_file()


def test_a_failed_apt_stops_the_install_with_the_command_to_run(sandbox):
    """apt-get failing (no network, no sudo rights) went on to the venv: `a && b` failing does
    not stop a set -e script."""
    _script(sandbox["tmp"] / "fakebin" / "dpkg-query",
            '#!/bin/sh\nfor p; do :; done\n[ "$p" = python3-venv ] && exit 1\nprintf "install ok installed"\n')
    r = setup_sh(sandbox, PYTHON=str(fake_python(sandbox)))
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["setup: installing Debian packages: python3-venv"]
    assert r.stderr.splitlines()[-1] == ("setup: could not install the Debian packages; install them and run this "
                                         "again: sudo apt-get install python3-venv")
    assert [c.split()[0] for c in calls(sandbox) if not c.startswith("python")] in (["apt-get"], ["sudo"])
    assert not sandbox["venv"].exists()
