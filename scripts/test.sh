#!/usr/bin/env bash
# Runs every test of seq2seq-wasm from a clean checkout: installs what is
# missing, builds natively and to wasm, and runs the Catch2 tests in both.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The browser engines besides Chromium install in the background, beside the build;
# the page's browser tests wait for them.
scripts/install-deps.sh --engines
export NODE_PATH=/usr/share/nodejs   # Debian's emcc finds its Node modules here
jobs=$(nproc)

# npm's packages, too, install in the background while the native build runs
# (nothing before the npm part reads node_modules); that part waits for them.
# (vite, esbuild, webpack, parcel, rollup: the bundler tests of
# tests/browser/bundlers.test.mjs and the README's recipes,
# tests/browser/readme.test.mjs; the CMUdict package: the phonemizer's lexicon
# tests; bun and deno: the runtimes the README's Node examples and the worker
# also run in; tests/runtimes: Node at the package's lower bound, in a folder of
# its own so that its node shadows nothing; tests/node/runtimes.test.mjs.)
npm_ready() {
  [[ -x node_modules/.bin/tsc && -x node_modules/.bin/vite && -x node_modules/.bin/esbuild && -x node_modules/.bin/webpack \
     && -x node_modules/.bin/parcel && -x node_modules/.bin/rollup && -d node_modules/@rollup/plugin-url \
     && -d node_modules/@rollup/plugin-node-resolve && -x node_modules/.bin/bun && -x node_modules/.bin/deno \
     && -d node_modules/cmu-pronouncing-dictionary && -d node_modules/playwright-core && -d node_modules/puppeteer-core \
     && -x tests/runtimes/node_modules/node18/bin/node ]]
}
npm_install=
if ! npm_ready; then
  mkdir -p build/deps
  (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund && npm ci --prefix tests/runtimes --no-audit --no-fund) \
    >build/deps/npm.log 2>&1 &
  npm_install=$!
fi

# Each part says how long it took, so that the whole run's time (CI keeps it under 20
# minutes on 2 cores) can be read part by part.
# The named test files of DIR, then the rest: the longest first, so that files run
# two at a time finish together rather than one alone at the end.
longest_first() {
  local dir=$1 f
  shift
  printf '%s\n' "$@"
  for f in "$dir"/*.test.mjs; do [[ " $* " == *" $f "* ]] || echo "$f"; done
}

part_start=$SECONDS
part() {
  ((SECONDS > part_start)) && echo "   (took $((SECONDS - part_start)) s)"
  part_start=$SECONDS
  echo "== $1"
}

part "native build and tests"
# The default, portable build, as a user installs it: its kernels are chosen at
# run time (src/kernel_set.h), and ctest runs the suite under each instruction
# set this CPU has. The consumer test installs this build, and builds the
# library once more from source with add_subdirectory, file by file as a user's
# build does; here the library compiles as a few unity sources (CMAKE_UNITY_BUILD,
# as in the checking and wasm builds below: a sixth less build time). (The
# checking builds compile for this CPU, SEQ2SEQ_NATIVE_ARCH, so that option is
# built and tested too.)
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DSEQ2SEQ_NATIVE_ARCH=OFF -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build/native -j"$jobs"
ctest --test-dir build/native --output-on-failure -j"$jobs"

part "the library as a CMake package: install + find_package, and add_subdirectory (tests/consumer)"
SEQ2SEQ_JOBS=$jobs tests/consumer/run.sh build/native

part "checking builds: AddressSanitizer + UndefinedBehaviorSanitizer (Catch2 subset, CLI, fuzz targets), ThreadSanitizer"
# One clang build for all three (tests/fuzz/README.md). The Catch2 subset covers
# the loader, every strategy and every architecture (AR and CMLM in [session] and
# [search], the RNN in [rnn], the transformer's KV cache against PyTorch) and
# models shared by threads, in seconds; the whole suite takes minutes under ASan,
# most of them in the exhaustive searches, full-pass parity and shipped-model WER
# (seq2seq_checked_tests compiles only the files this subset draws on: CMakeLists.txt).
# The library compiles as a few unity sources here, in the native build above and
# in the wasm build (CMAKE_UNITY_BUILD; the test executables opt out): a third less
# build time, each header parsed once per unity source.
sanitized_tests="[model_file],[session]~[exhaustive],[search],[rnn],[ensemble],[tokenizer],[parity][incremental]"
CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Release -DSEQ2SEQ_BUILD_BENCH=OFF -DSEQ2SEQ_NATIVE_ARCH=ON -DSEQ2SEQ_FUZZ=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build/fuzz -j"$jobs"
build/fuzz/seq2seq_checked_tests "$sanitized_tests"
tests/sanitize/cli.sh build/fuzz/seq2seq
# A short smoke run per target in CI (the corpora are committed; long runs are
# tests/fuzz/README.md's business).
tests/fuzz/run.sh build/fuzz "${SEQ2SEQ_FUZZ_SECONDS:-5}"
CXX=clang++ cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=Release -DSEQ2SEQ_BUILD_BENCH=OFF -DSEQ2SEQ_NATIVE_ARCH=ON -DSEQ2SEQ_SANITIZE=thread -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build/tsan -j"$jobs" --target seq2seq_thread_tests
TSAN_OPTIONS=halt_on_error=1 build/tsan/seq2seq_thread_tests

part "wasm build and tests (Emscripten, run under Node)"
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DSEQ2SEQ_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build/wasm -j"$jobs"
ctest --test-dir build/wasm --output-on-failure

part "npm packages (seq2seq-wasm, seq2seq-wasm-models): pack, install, parity with the native CLI, errors, worker, leaks, types, README examples, Node 18, Bun and Deno (node --test)"
if [[ -n $npm_install ]] && ! wait "$npm_install"; then
  echo "npm ci failed (build/deps/npm.log):" >&2
  tail -n 30 build/deps/npm.log >&2
  exit 1
fi
scripts/build-wasm.sh
# The packed tarballs installed once into a scratch project, which every test file
# (and the page's bundler and README tests) then uses (tests/node/helpers.mjs).
SEQ2SEQ_SCRATCH_PROJECT=$(node tests/node/helpers.mjs --install)
export SEQ2SEQ_SCRATCH_PROJECT
# Two files at a time: most of them wait on a child process or a worker.
SEQ2SEQ_CLI="$root/build/native/seq2seq" node --test --test-concurrency=2 tests/node/

part "the page: build the site, browser tests (Debian's Chromium, headless; a subset in Firefox ESR and WebKitGTK)"
scripts/build-wasm.sh
node scripts/build-web.mjs
scripts/install-deps.sh --wait-engines
# Two files at a time, as the Node tests: each waits mostly on its page's decoder
# worker, and two browsers keep both cores busy.
mapfile -t browser_tests < <(longest_first tests/browser tests/browser/tour.test.mjs tests/browser/tour-train.test.mjs tests/browser/inside.test.mjs \
  tests/browser/webkit.test.mjs tests/browser/firefox.test.mjs \
  tests/browser/page.test.mjs tests/browser/first-screen.test.mjs tests/browser/self-attention.test.mjs \
  tests/browser/compare.test.mjs tests/browser/wordlist.test.mjs tests/browser/nar-length.test.mjs)
node --test --test-concurrency=2 "${browser_tests[@]}"
part "all passed in $SECONDS s"
