#!/usr/bin/env bash
# Installs what seq2seq-wasm needs from Debian, only what is missing.
#   scripts/install-deps.sh            build + test dependencies
#   scripts/install-deps.sh --train    also PyTorch (training and fixture generation)
set -euo pipefail

# clang: the sanitizer and fuzz builds (its clang-14 and compiler-rt come with emscripten
# already; this adds the plain clang++ name). fonts-wqy-microhei: Chinese glyphs for the
# page's zh screenshots in headless Chromium.
packages=(cmake g++ make git nodejs npm emscripten clang libeigen3-dev libsimde-dev catch2 nlohmann-json3-dev chromium fonts-wqy-microhei)
if [[ "${1:-}" == "--train" ]]; then
  packages+=(python3-torch python3-numpy python3-yaml libopenblas0-openmp wamerican-large)
fi

missing=()
for p in "${packages[@]}"; do
  # Node.js from another source (e.g. NodeSource's nodejs, which bundles npm) counts as installed.
  if [[ $p == nodejs || $p == npm ]] && command -v "${p/nodejs/node}" >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
