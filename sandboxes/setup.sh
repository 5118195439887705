#!/usr/bin/env bash
# Bring up what the looplab-docker sandbox needs: a Docker engine, a Debian bookworm base image and
# the looplab sandbox image. Idempotent: every step first checks whether its result is there.
#
# Usage: sandboxes/setup.sh [--check] [--print-mirror] [--help]
#   --check          only report whether the engine and the sandbox image are ready; change nothing.
#   --print-mirror   print the Debian mirror a debootstrap would use, and exit.
#
# Exit codes: 0 ready; 1 not ready (--check only); 2 bad usage; 3 no Docker engine;
#             4 base image could not be made (or no Debian mirror found); 5 image build failed.
#
# Environment overrides:
#   LOOPLAB_SANDBOX_IMAGE   image to build        (default looplab-sandbox:latest)
#   LOOPLAB_BASE_IMAGE      base image to use     (default looplab-base:bookworm)
#   LOOPLAB_SANDBOX_CACHE   debootstrap cache dir (default <repo>/.sandbox-cache, git-ignored)
#   LOOPLAB_DEBIAN_MIRROR   Debian mirror for debootstrap (default: read from apt's sources)
#   LOOPLAB_APT_DIR         where apt's sources are read from (default /etc/apt)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
DOCKERFILE="$HERE/Dockerfile"
CONTEXT="$HERE/container"  # what the image copies in: the sandbox's own programs
IMAGE="${LOOPLAB_SANDBOX_IMAGE:-looplab-sandbox:latest}"
BASE_IMAGE="${LOOPLAB_BASE_IMAGE:-looplab-base:bookworm}"
CACHE="${LOOPLAB_SANDBOX_CACHE:-$REPO/.sandbox-cache}"
SUITE="bookworm"
HASH_LABEL="looplab.dockerfile-sha256"
APT_DIR="${LOOPLAB_APT_DIR:-/etc/apt}"
DOCKERD_LOG="/var/log/looplab-dockerd.log"
APT_LOG="/var/log/looplab-apt.log"
ENGINE_WAIT_S=60

step() { printf '[sandbox] %s\n' "$*"; }
fail() {
  local code="$1"
  shift
  printf '[sandbox] FAILED: %s\n' "$*" >&2
  exit "$code"
}

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

CHECK_ONLY=0
PRINT_MIRROR=0
for arg in "$@"; do
  case "$arg" in
    --check) CHECK_ONLY=1 ;;
    --print-mirror) PRINT_MIRROR=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; fail 2 "unknown option '$arg' (known: --check, --print-mirror, --help)" ;;
  esac
done

engine_up() { docker info >/dev/null 2>&1; }
image_present() { docker image inspect "$1" >/dev/null 2>&1; }
# The image's identity: the Dockerfile and the programs of its build context (*.py), in name
# order (sandboxes/docker_engine.py computes the same).
dockerfile_hash() {
  { cat "$DOCKERFILE"
    for f in $(cd "$CONTEXT" && LC_ALL=C ls -- *.py); do printf '\0%s\0' "$f"; cat "$CONTEXT/$f"; done
  } | sha256sum | cut -d' ' -f1
}
image_hash() {
  docker image inspect -f "{{ index .Config.Labels \"$HASH_LABEL\" }}" "$IMAGE" 2>/dev/null || true
}
no_engine_hint="run 'make sandbox' as root on Debian, start Docker yourself, or run without Docker: make eval SANDBOX=local (sandbox=local)"

# Prints the first Debian mirror URI apt uses for the main suite (deb822 .sources or sources.list).
debian_mirror() {
  if [[ -n "${LOOPLAB_DEBIAN_MIRROR:-}" ]]; then
    echo "$LOOPLAB_DEBIAN_MIRROR"
    return
  fi
  local f
  for f in "$APT_DIR"/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    # A deb822 file is blank-line separated stanzas; keep the URI of one whose Suites has $SUITE.
    awk -v suite="$SUITE" '
      function flush() { if (uri != "" && ok && deb) { print uri; found = 1; exit } uri = ""; ok = 0; deb = 0 }
      /^[[:space:]]*$/ { flush(); next }
      /^[[:space:]]*#/ { next }
      tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
      END { if (!found) flush() }
    ' "$f" | head -n1
  done
  for f in "$APT_DIR"/sources.list "$APT_DIR"/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -E 's/\[[^]]*\]//' "$f" | awk -v suite="$SUITE" '$1 == "deb" && $3 == suite { print $2; exit }'
  done
}

if [[ "$PRINT_MIRROR" == 1 ]]; then
  mirror="$(debian_mirror | head -n1)"
  [[ -n "$mirror" ]] || fail 4 "no Debian mirror for '$SUITE' in $APT_DIR/sources.list(.d); set LOOPLAB_DEBIAN_MIRROR"
  echo "$mirror"
  exit 0
fi

# --- --check: report and change nothing ----------------------------------------------------------
if [[ "$CHECK_ONLY" == 1 ]]; then
  if ! command -v docker >/dev/null 2>&1 || ! engine_up; then
    step "engine: not reachable ($no_engine_hint)"
    exit 1
  fi
  step "engine: up ($(docker version -f '{{.Server.Version}}' 2>/dev/null))"
  if ! image_present "$IMAGE"; then
    step "image: $IMAGE missing (run sandboxes/setup.sh)"
    exit 1
  fi
  if [[ "$(image_hash)" != "$(dockerfile_hash)" ]]; then
    step "image: $IMAGE is out of date with sandboxes/Dockerfile (run sandboxes/setup.sh)"
    exit 1
  fi
  step "image: $IMAGE up to date"
  exit 0
fi

# --- (a) engine -----------------------------------------------------------------------------------
is_root_debian() { [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && command -v apt-get >/dev/null; }

start_engine() {
  if [[ -n "${DOCKER_HOST:-}" && "$DOCKER_HOST" != "unix:///var/run/docker.sock" ]]; then
    fail 3 "no Docker engine answers at DOCKER_HOST=$DOCKER_HOST; not starting a local one ($no_engine_hint)"
  fi
  if ! is_root_debian; then
    fail 3 "no Docker engine is reachable and this is not root on Debian, so it cannot be installed here ($no_engine_hint)"
  fi
  if ! command -v dockerd >/dev/null 2>&1; then
    step "engine: installing docker.io with apt-get"
    apt-get update -qq -o DPkg::Lock::Timeout=600 >>"$APT_LOG" 2>&1 \
      || fail 3 "apt-get update failed, see $APT_LOG ($no_engine_hint)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 docker.io \
      >>"$APT_LOG" 2>&1 || fail 3 "apt-get install docker.io failed, see $APT_LOG ($no_engine_hint)"
  fi
  if pgrep -x dockerd >/dev/null 2>&1; then
    step "engine: dockerd already running, waiting for it to answer"
  else
    step "engine: starting dockerd in the background (log: $DOCKERD_LOG)"
    # setsid: the daemon must outlive this script and not receive the caller's Ctrl-C.
    setsid nohup dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
  fi
  local waited=0
  until engine_up; do
    if ((waited >= ENGINE_WAIT_S)); then
      fail 3 "dockerd did not answer within ${ENGINE_WAIT_S}s; see $DOCKERD_LOG ($no_engine_hint)"
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

if ! command -v docker >/dev/null 2>&1 && ! is_root_debian; then
  fail 3 "the docker client is not installed ($no_engine_hint)"
fi
if engine_up; then
  step "engine: up ($(docker version -f '{{.Server.Version}}' 2>/dev/null))"
else
  start_engine
  step "engine: up ($(docker version -f '{{.Server.Version}}' 2>/dev/null))"
fi

# --- (a2) inotify instances -----------------------------------------------------------------------
# Every sandbox runs a witness holding one inotify instance, and containers run as host uid 0, so
# all of them share root's fs.inotify.max_user_instances (128 on many kernels): a matrix run's warm
# pools pass that, and the witnesses of later containers cannot start (their samples error).
want_inotify=8192
have_inotify="$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 0)"
if (( have_inotify >= want_inotify )); then
  step "inotify: $have_inotify instances per user"
elif [[ "$(id -u)" == 0 ]] && sysctl -qw "fs.inotify.max_user_instances=$want_inotify" 2>/dev/null; then
  step "inotify: instances per user raised from $have_inotify to $want_inotify"
else
  step "inotify: $have_inotify instances per user: at most that many sandboxes at once (as root: sysctl -w fs.inotify.max_user_instances=$want_inotify)"
fi

# --- (b) base image -------------------------------------------------------------------------------
make_base_by_debootstrap() {
  [[ "$(id -u)" == 0 ]] || fail 4 "$BASE_IMAGE is missing, pulling failed and debootstrap needs root"
  local mirror root done_marker
  mirror="$(debian_mirror | head -n1)"
  [[ -n "$mirror" ]] || fail 4 "no Debian mirror for '$SUITE' in $APT_DIR/sources.list(.d); set LOOPLAB_DEBIAN_MIRROR"
  root="$CACHE/debootstrap-$SUITE"
  done_marker="$CACHE/debootstrap-$SUITE.done"
  if [[ -f "$done_marker" && -d "$root" ]]; then
    step "base image: reusing cached debootstrap tree $root"
  else
    if ! command -v debootstrap >/dev/null 2>&1; then
      step "base image: installing debootstrap with apt-get"
      apt-get update -qq -o DPkg::Lock::Timeout=600 >>"$APT_LOG" 2>&1 \
        || fail 4 "apt-get update failed, see $APT_LOG"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 debootstrap \
        >>"$APT_LOG" 2>&1 || fail 4 "apt-get install debootstrap failed, see $APT_LOG"
    fi
    step "base image: debootstrap --variant=minbase $SUITE from $mirror into $root"
    rm -rf "$root"
    mkdir -p "$CACHE"
    debootstrap --variant=minbase "$SUITE" "$root" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
      || fail 4 "debootstrap failed; see $CACHE/debootstrap.log"
    touch "$done_marker"
  fi
  step "base image: importing $root as $BASE_IMAGE"
  tar -C "$root" -c . | docker import - "$BASE_IMAGE" >/dev/null || fail 4 "docker import failed"
}

if image_present "$BASE_IMAGE"; then
  step "base image: $BASE_IMAGE present"
elif image_present "$IMAGE" && [[ "$(image_hash)" == "$(dockerfile_hash)" ]]; then
  step "base image: $BASE_IMAGE missing but $IMAGE is up to date, not needed"
else
  step "base image: trying docker pull debian:$SUITE-slim"
  if timeout 120 docker pull -q "debian:$SUITE-slim" >/dev/null 2>&1; then
    docker tag "debian:$SUITE-slim" "$BASE_IMAGE" || fail 4 "docker tag debian:$SUITE-slim $BASE_IMAGE failed"
    step "base image: tagged debian:$SUITE-slim as $BASE_IMAGE"
  else
    step "base image: pull failed (no registry reachable?), building one with debootstrap"
    make_base_by_debootstrap
  fi
fi

# --- (c) sandbox image ----------------------------------------------------------------------------
want_hash="$(dockerfile_hash)"
if image_present "$IMAGE" && [[ "$(image_hash)" == "$want_hash" ]]; then
  step "image: $IMAGE up to date"
else
  step "image: building $IMAGE from sandboxes/Dockerfile (base $BASE_IMAGE)"
  mkdir -p "$CACHE"
  docker build -q -t "$IMAGE" --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    --label "$HASH_LABEL=$want_hash" --label "looplab.sandbox.image=1" \
    -f "$DOCKERFILE" "$CONTEXT" >"$CACHE/build.log" 2>&1 \
    || { tail -n 20 "$CACHE/build.log" >&2; fail 5 "docker build of $IMAGE failed; see $CACHE/build.log"; }
  step "image: built $IMAGE"
fi
step "ready: engine up, $IMAGE built"
