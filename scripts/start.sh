#!/usr/bin/env bash
# The main command: builds everything the page needs and serves it.
#   scripts/start.sh            -> http://127.0.0.1:8080/
#   PORT=9000 scripts/start.sh  (or: scripts/start.sh --port 9000)
# On a fresh Debian 12 machine it first installs what is missing (Debian
# packages via scripts/install-deps.sh; node_modules via npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

port="${PORT:-8080}"
while (($#)); do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --port=*) port="${1#*=}"; shift ;;
    *) echo "usage: scripts/start.sh [--port N]" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
if [[ ! -d node_modules ]]; then
  echo "== npm ci"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
fi
echo "== wasm"
scripts/build-wasm.sh
echo "== site"
node scripts/build-web.mjs
echo "== serving (Ctrl-C stops)"
exec node scripts/serve.mjs build/site --port "$port"
