# shellcheck shell=bash
# Shared by scripts/*: find a Python >= 3.14.2 (Home Assistant 2026.10 needs it), or
# build and enter a cached Debian testing root that has one. Source it, don't run it.

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MIN_PYTHON="3.14.2"
CACHE_DIR="${AGENTIC_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/agentic_conversation}"
ROOTFS="${AGENTIC_ROOTFS:-$CACHE_DIR/debian-testing-py314}"
# ffmpeg and libturbojpeg0: Home Assistant's tts/ffmpeg and camera components use them.
ROOT_PACKAGES="python3.14,python3.14-venv,python3.14-dev,build-essential,ca-certificates,ffmpeg,libturbojpeg0"
ROOT_READY_MARKER=".agentic-root-ready"
# The browser of the frontend e2e test (tests/e2e/test_frontend.py); optional: without it
# that test skips and says why.
BROWSER_PACKAGES="chromium chromium-driver fonts-liberation"
BROWSER_FAILED_MARKER="/var/lib/agentic-browser-failed"
BROWSER_LOG="/var/log/agentic-browser-install.log"

# The Home Assistant requirement set of this run, relative to the repository or absolute:
# requirements.txt (the pinned release, the dev server's) unless AGENTIC_HA_REQUIREMENTS
# names another (scripts/test sets it to run the suite on each release it tests).
ha_requirements() { printf '%s\n' "${AGENTIC_HA_REQUIREMENTS:-requirements.txt}"; }

log() { printf '\033[1m[%s]\033[0m %s\n' "$(basename "$0")" "$*" >&2; }

python_is_usable() {
  "$1" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 14, 2) else 1)' >/dev/null 2>&1
}

# Prints the path of the first usable Python on PATH (AGENTIC_PYTHON first, if set).
find_python() {
  local candidate path
  for candidate in ${AGENTIC_PYTHON:-} python3.14 python3.15 python3.16 python3 python; do
    path="$(command -v "$candidate" 2>/dev/null)" || continue
    if python_is_usable "$path"; then
      printf '%s\n' "$path"
      return 0
    fi
  done
  return 1
}

requirements_hash() {
  (cd "$REPO_ROOT" && cat "$(ha_requirements)" requirements_test.txt) | sha256sum | cut -c1-16
}

# Where the venv lives: on a host with a usable Python, the repo's .venv (.venv-<set>
# for another requirement set than requirements.txt); inside the cached root, one venv
# per requirements hash, so fresh clones reuse it.
venv_dir() {
  local set
  set="$(basename "$(ha_requirements)" .txt)"
  if [[ -n "${AGENTIC_VENV:-}" ]]; then
    printf '%s\n' "$AGENTIC_VENV"
  elif [[ -n "${AGENTIC_IN_ROOT:-}" ]]; then
    printf '/opt/agentic-venvs/%s\n' "$(requirements_hash)"
  elif [[ "$set" == requirements ]]; then
    printf '%s\n' "$REPO_ROOT/.venv"
  else
    printf '%s\n' "$REPO_ROOT/.venv-${set#requirements_}"
  fi
}

no_python_message() {
  cat >&2 <<EOF

Agentic Conversation needs Python >= $MIN_PYTHON (Home Assistant 2026.10 requires it),
and none was found on PATH (looked for: ${AGENTIC_PYTHON:-}${AGENTIC_PYTHON:+, }python3.14, python3.15, python3.16, python3, python).

$1

Do one of these, then run scripts/setup again:
  - install Python 3.14 (python.org installer, 'pyenv install 3.14', 'uv python install 3.14',
    or your distribution's python3.14 + python3.14-venv + python3.14-dev packages) and put it on PATH,
    or point AGENTIC_PYTHON at it: AGENTIC_PYTHON=/path/to/python3.14 scripts/setup
  - or open the repository in its dev container (.devcontainer.json), which has Python 3.14
  - or, on Debian/Ubuntu, run scripts/setup as root: it then builds a Debian testing root
    with Python 3.14 in $ROOTFS (about 1 GB, outside the repository) and runs everything in it.
EOF
}

root_is_ready() { [[ -f "$ROOTFS/$ROOT_READY_MARKER" ]]; }

# Builds the Debian testing root once (debootstrap, about a minute) and caches it.
build_root() {
  local tmp
  if [[ "$(id -u)" != "0" ]]; then
    no_python_message "Building a Python 3.14 root needs root privileges, and this is user $(id -un 2>/dev/null || id -u)."
    return 1
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
      no_python_message "Building a Python 3.14 root needs debootstrap (Debian/Ubuntu), and neither debootstrap nor apt-get is here."
      return 1
    fi
    log "installing debootstrap with apt-get"
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 || {
      no_python_message "'apt-get install debootstrap' failed."
      return 1
    }
  fi
  tmp="$ROOTFS.building"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$ROOTFS")"
  log "no Python >= $MIN_PYTHON on PATH: building a Debian testing root with Python 3.14 in $ROOTFS (one time, ~1-2 min)"
  if ! debootstrap --variant=minbase --include="$ROOT_PACKAGES" testing "$tmp" >"$CACHE_DIR/debootstrap.log" 2>&1; then
    tail -n 20 "$CACHE_DIR/debootstrap.log" >&2
    no_python_message "debootstrap failed (full log: $CACHE_DIR/debootstrap.log)."
    return 1
  fi
  rm -rf "$ROOTFS"
  mv "$tmp" "$ROOTFS"
  sync_root_config
  printf '%s\n' "$ROOT_PACKAGES" >"$ROOTFS/$ROOT_READY_MARKER"
  log "root ready in $ROOTFS"
}

# A root built by an older version of this script gets the packages added since.
update_root_packages() {
  [[ "$(cat "$ROOTFS/$ROOT_READY_MARKER")" == "$ROOT_PACKAGES" ]] && return 0
  log "adding packages to the root: ${ROOT_PACKAGES//,/ }"
  run_in_root /bin/bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${ROOT_PACKAGES//,/ } >/dev/null" >&2
  printf '%s\n' "$ROOT_PACKAGES" >"$ROOTFS/$ROOT_READY_MARKER"
}

# Copies a host file into the root only if it changed, atomically: commands already
# running in the root may be reading it (a half-written CA bundle breaks TLS setup).
sync_file() {
  local src=$1 dest=$2
  [[ -f "$src" ]] || return 0
  cmp -s "$src" "$dest" 2>/dev/null && return 0
  mkdir -p "$(dirname "$dest")"
  cp -L "$src" "$dest.agentic-new" && mv -f "$dest.agentic-new" "$dest"
}

# Copies name resolution, CA certificates and pip settings from the host into the root.
sync_root_config() {
  local f snapshot="$ROOTFS/etc/apt/apt.conf.d/99agentic-snapshot"
  # The package mirror may serve a frozen snapshot whose Release file has expired.
  [[ -f "$snapshot" ]] || printf 'Acquire::Check-Valid-Until "false";\n' >"$snapshot"
  sync_file /etc/resolv.conf "$ROOTFS/etc/resolv.conf" || true
  sync_file /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
  sync_file /etc/pip.conf "$ROOTFS/etc/pip.conf"
  for f in "${HOME:-/root}/.config/pip/pip.conf" "${HOME:-/root}/.pip/pip.conf"; do
    sync_file "$f" "$ROOTFS/root/.config/pip/pip.conf"
  done
  return 0
}

# Runs "$@" inside the root, in a private mount namespace (nothing stays mounted after),
# with the repository mounted at the same path and the current directory kept.
run_in_root() {
  sync_root_config
  mkdir -p "$ROOTFS$REPO_ROOT"
  local cwd="$PWD"
  [[ "$cwd" == "$REPO_ROOT"* ]] || cwd="$REPO_ROOT"
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    root=$1 repo=$2 cwd=$3
    shift 3
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mount --bind "$repo" "$root$repo"
    exec chroot "$root" /usr/bin/env \
      AGENTIC_IN_ROOT=1 HOME=/root LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
  ' _ "$ROOTFS" "$REPO_ROOT" "$cwd" "$@"
}

# Every script calls this first: returns when a usable Python is here; otherwise it
# re-runs the calling script inside the cached root (building it when allowed) and exits.
ensure_python_or_reexec() {
  if PYTHON="$(find_python)"; then
    export PYTHON
    return 0
  fi
  if [[ -n "${AGENTIC_IN_ROOT:-}" ]]; then
    log "inside the root, but its python3.14 is missing or older than $MIN_PYTHON: remove $ROOTFS and run scripts/setup again"
    exit 1
  fi
  if root_is_ready; then
    update_root_packages
  else
    build_root || exit 1
  fi
  local script
  script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
  run_in_root "$script" "$@"
  exit $?
}

# Inside the root: installs Debian's chromium and chromedriver once. Not fatal: a failure
# is logged and tried again a day later (the frontend test skips meanwhile, saying why).
ensure_browser() {
  [[ -n "${AGENTIC_IN_ROOT:-}" && "$(id -u)" == "0" ]] || return 0
  command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && return 0
  if [[ -n "$(find "$BROWSER_FAILED_MARKER" -mmin -1440 2>/dev/null)" ]]; then
    return 0
  fi
  log "installing the frontend test's browser in the root: $BROWSER_PACKAGES (one time)"
  if apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $BROWSER_PACKAGES >/dev/null 2>"$BROWSER_LOG"; then
    rm -f "$BROWSER_FAILED_MARKER"
  else
    log "could not install $BROWSER_PACKAGES (the frontend test will skip): $(tail -n 3 "$BROWSER_LOG" 2>/dev/null)"
    date >"$BROWSER_FAILED_MARKER"
  fi
  return 0
}

# Puts the venv's bin first on PATH (after scripts/setup made it).
activate_venv() {
  VENV="$(venv_dir)"
  export VENV
  export PATH="$VENV/bin:$PATH"
  export VIRTUAL_ENV="$VENV"
}
