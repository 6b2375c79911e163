#!/usr/bin/env bash
# Builds the npm module's WebAssembly (Emscripten, -O3 -msimd128) into wasm/dist/:
# the decoder (seq2seq_core) and, apart, the trainer (seq2seq_train, seq2seq-wasm/train).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Debian's emcc finds its Node modules here
if [[ ! -f build/wasm/CMakeCache.txt ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DSEQ2SEQ_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build/wasm -j"$(nproc)" --target seq2seq_module seq2seq_train_module
mkdir -p wasm/dist
cp build/wasm/seq2seq_core.mjs build/wasm/seq2seq_core.wasm build/wasm/seq2seq_train.mjs build/wasm/seq2seq_train.wasm wasm/dist/
