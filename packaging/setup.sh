#!/usr/bin/env bash
# One entry point for a fresh machine:
#   packaging/setup.sh run    install everything, then start the app on the demo project
#   packaging/setup.sh test   install everything, then run the whole test suite (pytest)
#   packaging/setup.sh        install only
set -euo pipefail

usage() {
  cat <<'EOF'
usage: packaging/setup.sh [run [APP ARGS...] | test [PYTEST ARGS...] | -h | --help]

  (no argument)      install only: the Debian packages Qt needs (with sudo when not root),
                     a virtual environment and sasc-desktop with its dependencies
  run [APP ARGS]     install, then start the app (on the demo project unless told otherwise;
                     the arguments go to sasc-desktop, e.g. --project DIR)
  test [PYTEST ARGS] install, then run the engine suite (without Qt) and the GUI suite
                     (the arguments go to pytest)
  -h, --help         show this and exit (nothing is installed)

environment:
  PYTHON     the interpreter to build the virtual environment with (Python >= 3.11; default python3)
  SASC_VENV  where the virtual environment goes (default: .venv in the checkout)
EOF
}

# The argument first: a typo or --help must not install anything.
mode="${1:-}"
case "$mode" in
  -h|--help) usage; exit 0 ;;
  ""|run|test) ;;
  *) echo "setup: unknown argument: $mode" >&2; usage >&2; exit 2 ;;
esac
venv="${SASC_VENV:-}"
case "$venv" in "" | /*) ;; *) venv="$(pwd)/$venv" ;; esac  # relative to where it was typed
here="$(cd "$(dirname "$0")/.." && pwd -P)"  # without symlinks: compared with the stamp
cd "$here"
venv="${venv:-$here/.venv}"
py="${PYTHON:-python3}"

# The interpreter before anything is installed: Python >= 3.11 (Ubuntu 22.04's python3 is 3.10).
if ! command -v "$py" >/dev/null 2>&1; then
  echo "setup: Python >= 3.11 needed; found no $py; install it or set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
ver="$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true)"
IFS=. read -r major minor _ <<<"$ver"
if ! [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || [ "$major" -lt 3 ] || { [ "$major" = 3 ] && [ "$minor" -lt 11 ]; }; then
  echo "setup: Python >= 3.11 needed; found ${ver:-none} ($py); set PYTHON=/path/to/python3.11" >&2
  exit 1
fi

# Debian packages Qt's xcb/offscreen plugins load at run time, Xvfb for a real window, and
# python3-venv (Priority optional: stock Debian/Ubuntu lack it, and `python3 -m venv` fails).
apt_pkgs=(libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
          libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0
          libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxcb-xfixes0 libxcb-xkb1 xvfb xauth
          python3-venv)
# python3-venv is the default python3's; another Debian python (PYTHON=python3.11 beside a
# python3 3.10) needs its own python3.X-venv, which holds the ensurepip module venv runs.
"$py" -c 'import ensurepip' >/dev/null 2>&1 || apt_pkgs+=("python$major.$minor-venv")
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${apt_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing Debian packages: ${missing[*]}"
  # (a failed `a && b` does not stop a set -e script: a failed apt went on to the venv)
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
    echo "setup: could not install the Debian packages; install them and run this again:" \
         "sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# A venv is usable only with pip and Python >= 3.11: one a failed `-m venv` left (bin/python,
# no pip) or one made with Python 3.10 is made again, not reused forever.
venv_ok() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sys, pip; assert sys.version_info >= (3, 11)' >/dev/null 2>&1
}
stamp="$venv/.sasc-installed"  # checkout=<this checkout>, venv=<the venv>, at the last install
recorded() { { sed -n "s/^$1=//p" "$stamp" 2>/dev/null || true; } | head -n 1; }
# A venv moved (with a moved checkout, as .venv is) keeps the old path in its scripts' shebangs.
made_in="$(recorded venv)"
moved=""
[ -n "$made_in" ] && [ -d "$venv" ] && [ "$made_in" != "$(cd "$venv" && pwd -P)" ] && moved=1
if [ -n "$moved" ] || ! venv_ok; then
  if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ] && [ -n "$(ls -A "$venv" 2>/dev/null)" ]; then
    echo "setup: $venv is not a virtual environment and not empty; move it away or set SASC_VENV to another folder" >&2
    exit 1
  fi
  if [ -n "$moved" ]; then
    echo "setup: the virtual environment in $venv was made in $made_in (moved since: its scripts name that place);" \
         "making it again with $py ($ver)"
  elif [ -e "$venv/bin/python" ]; then
    echo "setup: the virtual environment in $venv is unusable (no pip, or Python < 3.11); making it again with $py ($ver)"
  else
    echo "setup: creating virtual environment in $venv with $py ($ver)"
  fi
  if ! "$py" -m venv --clear "$venv" || ! venv_ok; then
    echo "setup: could not create a virtual environment with $py ($ver) in $venv; on Debian/Ubuntu install" \
         "python$major.$minor-venv (sudo apt-get install python$major.$minor-venv) and run this again" >&2
    exit 1
  fi
fi
venv_real="$(cd "$venv" && pwd -P)"
# Installed for this checkout? The stamp says where the last install was from, and the import
# says where sasc_desktop comes from now (-I: not from the current folder); a checkout moved or
# renamed since is installed again (its editable install still named the old place).
installed_from() { "$venv/bin/python" -I -c 'import os, sasc_desktop; print(os.path.dirname(os.path.dirname(os.path.realpath(sasc_desktop.__file__))))' 2>/dev/null || true; }
why=""
if [ ! -f "$stamp" ]; then why="not installed yet"
elif [ pyproject.toml -nt "$stamp" ]; then why="pyproject.toml changed"
elif [ -n "$(recorded checkout)" ] && [ "$(recorded checkout)" != "$here" ]; then why="installed from $(recorded checkout), not $here"
elif [ "$(installed_from)" != "$here" ]; then why="sasc_desktop in $venv is not this checkout's ($here)"
fi
if [ -n "$why" ]; then
  echo "setup: installing sasc-desktop and its dependencies ($why)"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e ".[dev]"
  printf 'checkout=%s\nvenv=%s\n' "$here" "$venv_real" > "$stamp"
fi

# A menu entry and its icon (Exec cannot rely on PATH: the venv is not on it). Written at
# every install, unchanged files left alone; a home folder that cannot be written is a warning.
"$venv/bin/python" -I - "$venv_real/bin/sasc-desktop" packaging/sasc-desktop.desktop \
    resources/icons/sasc-desktop.svg <<'PY' || true
import os, shutil, subprocess, sys
exe, template, icon = sys.argv[1:4]
data = os.environ.get("XDG_DATA_HOME", "")
if not os.path.isabs(data):  # unset, empty or relative: the spec's default
    data = os.path.join(os.path.expanduser("~"), ".local", "share")
apps, icons = os.path.join(data, "applications"), os.path.join(data, "icons", "hicolor", "scalable", "apps")


def exec_arg(path):
    """One quoted argument of a desktop entry's Exec: inside the quotes \\ " ` $ take a
    backslash; then the value's own escaping doubles every backslash; a % is %%."""
    for c in '\\"`$':
        path = path.replace(c, "\\" + c)
    return '"' + path.replace("\\", "\\\\").replace("%", "%%") + '"'


def put(path, content):
    """Write ``content`` to ``path`` in one step (another file renamed over it), unless it is
    there already."""
    try:
        with open(path, "rb") as f:
            if f.read() == content:
                return False
    except OSError:
        pass
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(content)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return True


try:
    if any(ord(c) < 32 for c in exe):
        raise ValueError(f"the path {exe!r} holds a control character a desktop entry cannot hold")
    lines = []
    for line in open(template, encoding="utf-8").read().splitlines():
        if line.startswith("Exec=sasc-desktop"):
            line = "Exec=" + exec_arg(exe) + line[len("Exec=sasc-desktop"):]
        lines.append(line)
    os.makedirs(apps, exist_ok=True)
    os.makedirs(icons, exist_ok=True)
    changed = put(os.path.join(icons, "sasc-desktop.svg"), open(icon, "rb").read())
    changed |= put(os.path.join(apps, "sasc-desktop.desktop"), ("\n".join(lines) + "\n").encode("utf-8"))
except (OSError, ValueError) as exc:
    print(f"setup: warning: no menu entry installed in {data} ({exc}); the app still starts with the "
          f"command below", file=sys.stderr)
    sys.exit(0)
if changed:
    print(f"setup: menu entry {os.path.join(apps, 'sasc-desktop.desktop')} and its icon installed")
    if "%" in exe:  # written as the spec says (%%), but GLib checks the path before it expands %%
        print(f"setup: warning: GNOME (GLib) cannot start a program whose path holds a %: {exe}", file=sys.stderr)
    cache = os.path.join(data, "icons", "hicolor", "icon-theme.cache")
    if os.path.exists(cache) and shutil.which("gtk-update-icon-cache"):  # a stale cache hides a new icon
        subprocess.run(["gtk-update-icon-cache", "-q", "-t", "-f", os.path.dirname(cache)], check=False)
PY

case "$mode" in
  run)
    shift
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
      echo "setup: no display found; starting the app under xvfb-run (invisible)."
      exec xvfb-run -a "$venv/bin/sasc-desktop" "$@"
    fi
    exec "$venv/bin/sasc-desktop" "$@" ;;
  test)
    shift
    # The engine suite with PySide6 made unimportable (proves the engine runs without Qt),
    # then the GUI suite offscreen; one closing line sums both.
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT  # the junit files: gone however the run ends
    set +e
    SASC_BLOCK_QT=1 "$venv/bin/python" -m pytest -q -p no:pytest-qt --junitxml="$out/engine.xml" tests/engine "$@"
    rc_engine=$?
    "$venv/bin/python" -m pytest -q --junitxml="$out/gui.xml" tests/gui "$@"
    rc_gui=$?
    set -e
    # A suite that stopped early (a crash writes no junit file; pytest's 2, 3, 4) is named, and
    # the closing line never reads as if every test had run.
    "$venv/bin/python" - engine "$rc_engine" "$out/engine.xml" GUI "$rc_gui" "$out/gui.xml" <<'PY'
import signal, sys, xml.etree.ElementTree as ET
t = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
stopped = []  # (suite, how)
args = sys.argv[1:]
for name, rc, path in zip(args[0::3], map(int, args[1::3]), args[2::3]):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        root = None
    if root is None or rc not in (0, 1, 5):  # 1: tests failed, 5: none collected; else it stopped
        how = {2: "interrupted", 3: "internal error", 4: "usage error"}.get(rc)
        if rc > 128 and rc - 128 in signal.Signals._value2member_map_:
            how = f"killed by {signal.Signals(rc - 128).name}"
        stopped.append((name, f"exit {rc}" + (f", {how}" if how else "")))
    for suite in ([] if root is None else [root] if root.tag == "testsuite" else root.iter("testsuite")):
        for key in t:
            t[key] += int(suite.get(key, 0))
failed = t["failures"] + t["errors"]
counts = f"{t['tests'] - failed - t['skipped']} passed, {failed} failed, {t['skipped']} skipped"
for name, how in stopped:
    print(f"{name} suite did not finish ({how})")
if stopped:
    which = "; ".join(f"the {name} suite stopped: {how}" for name, how in stopped)
    print(f"all suites: NOT FINISHED ({which}); counted before that: {counts}")
else:
    print(f"all suites: {counts}")
PY
    [ "$rc_engine" = 0 ] && [ "$rc_gui" = 0 ] ;;
  "") printf 'setup: done. Start the app with: %q\n' "$venv/bin/sasc-desktop" ;;  # quoted for a shell
esac
