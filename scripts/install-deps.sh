#!/usr/bin/env bash
# Installs what seq2seq-wasm needs from Debian, only what is missing.
#   scripts/install-deps.sh                  build + test dependencies
#   scripts/install-deps.sh --train          also PyTorch (training and fixture generation)
#   scripts/install-deps.sh --engines        also, in the background, the browser engines
#                                            only the page's tests use besides Chromium
#   scripts/install-deps.sh --wait-engines   waits for that install; fails if it failed
# The engines (Firefox ESR, WebKitGTK's WebDriver and MiniBrowser, Xvfb for its display)
# take the better part of a minute to install: scripts/test.sh starts them before the
# native build and waits for them just before the browser tests. Their apt-get runs
# after this script's own, so the two never want apt's lock at once; its exit status
# lands in build/deps/engines.status, its output in build/deps/engines.log.
set -euo pipefail
cd "$(dirname "$0")/.."

deps=build/deps
status=$deps/engines.status
engine_packages=(firefox-esr webkit2gtk-driver xvfb)

SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
apt_install() {
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends "$@"
}
missing_of() {
  local p
  for p in "$@"; do
    # Node.js from another source (e.g. NodeSource's nodejs, which bundles npm) counts as installed.
    if [[ $p == nodejs || $p == npm ]] && command -v "${p/nodejs/node}" >/dev/null; then continue; fi
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

if [[ "${1:-}" == "--wait-engines" ]]; then
  [[ -f $deps/engines.pid ]] || { echo "install-deps: the browser engines' install was never started (scripts/install-deps.sh --engines)" >&2; exit 1; }
  pid=$(<"$deps/engines.pid")
  waited=$SECONDS
  while [[ ! -f $status ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      [[ -f $status ]] && break
      echo "install-deps: the browser engines' install (pid $pid) ended without an exit status; see $deps/engines.log" >&2
      exit 1
    fi
    sleep 1
  done
  rc=$(<"$status")
  if [[ $rc != 0 ]]; then
    echo "install-deps: installing ${engine_packages[*]} failed (exit $rc); the end of $deps/engines.log:" >&2
    tail -n 20 "$deps/engines.log" >&2 || true
    exit 1
  fi
  ((SECONDS > waited)) && echo "   (waited $((SECONDS - waited)) s for the browser engines)"
  exit 0
fi

# clang: the sanitizer and fuzz builds (its clang-14 and compiler-rt come with emscripten
# already; this adds the plain clang++ name). fonts-wqy-microhei: Chinese glyphs for the
# page's zh screenshots in headless Chromium.
packages=(cmake g++ make git nodejs npm emscripten clang libeigen3-dev libsimde-dev catch2 nlohmann-json3-dev chromium fonts-wqy-microhei)
engines=false
for arg in "$@"; do
  case $arg in
    --train) packages+=(python3-torch python3-numpy python3-yaml libopenblas0-openmp wamerican-large) ;;
    --engines) engines=true ;;
    *) echo "usage: scripts/install-deps.sh [--train] [--engines] | --wait-engines" >&2; exit 2 ;;
  esac
done

updated=false
mapfile -t missing < <(missing_of "${packages[@]}")
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  updated=true
  apt_install "${missing[@]}" >/dev/null
fi

if $engines; then
  mkdir -p "$deps"
  rm -f "$status" "$deps/engines.pid"
  mapfile -t missing < <(missing_of "${engine_packages[@]}")
  if ((${#missing[@]})); then
    echo "installing in the background: ${missing[*]} ($deps/engines.log)"
    (
      set +e
      { $updated || $SUDO apt-get update -qq; } && apt_install "${missing[@]}"
      echo $? >"$status.partial"
      mv "$status.partial" "$status"
    ) </dev/null >"$deps/engines.log" 2>&1 &
    echo $! >"$deps/engines.pid"
  else
    echo $$ >"$deps/engines.pid"
    echo 0 >"$status"
  fi
fi
