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
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
venv="${SASC_VENV:-$here/.venv}"
py="${PYTHON:-python3}"

# Debian packages Qt's xcb/offscreen plugins load at run time, and Xvfb for a real window.
apt_pkgs=(libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
          libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0
          libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxcb-xfixes0 libxcb-xkb1 xvfb xauth)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${apt_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

stamp="$venv/.sasc-installed"
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating virtual environment in $venv"
  "$py" -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing sasc-desktop and its dependencies"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e ".[dev]"
  touch "$stamp"
fi

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
    set +e
    SASC_BLOCK_QT=1 "$venv/bin/python" -m pytest -q -p no:pytest-qt --junitxml="$out/engine.xml" tests/engine "$@"
    rc_engine=$?
    "$venv/bin/python" -m pytest -q --junitxml="$out/gui.xml" tests/gui "$@"
    rc_gui=$?
    set -e
    "$venv/bin/python" - "$out/engine.xml" "$out/gui.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
t = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        continue
    for suite in ([root] if root.tag == "testsuite" else root.iter("testsuite")):
        for key in t:
            t[key] += int(suite.get(key, 0))
failed = t["failures"] + t["errors"]
print(f"all suites: {t['tests'] - failed - t['skipped']} passed, {failed} failed, {t['skipped']} skipped")
PY
    [ "$rc_engine" = 0 ] && [ "$rc_gui" = 0 ] ;;
  "") echo "setup: done. Start the app with: $venv/bin/sasc-desktop" ;;
esac
