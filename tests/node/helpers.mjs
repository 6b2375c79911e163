// Shared by the npm packages' tests (tests/node/*.test.mjs): the packed and
// installed packages, the native CLI, the models and words to test with.
//
// The packages are tested as a user gets them: `npm pack` of seq2seq-wasm (the
// repository's root) and of seq2seq-wasm-models (models/), then `npm install
// --offline` of both tarballs into a scratch project in a temp dir, then
// imported from there. Packing and installing happens once per package content:
// the scratch project is keyed by a hash of the files npm would pack, so the
// test files (separate processes under `node --test`) share it.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURES = join(ROOT, 'tests/fixtures');
/** The folder of the seq2seq-wasm-models package. */
export const MODELS_PACKAGE = join(ROOT, 'models');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The files `npm pack` would put in the tarball of the package in `dir` (no scripts run). */
export function packFileList(dir = ROOT) {
  const out = execFileSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out)[0].files.map((f) => f.path).sort();
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function withLock(lockDir, fn) {
  const deadline = Date.now() + 10 * 60 * 1000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      // A lock older than 10 minutes belongs to a run that died.
      try { if (Date.now() - statSync(lockDir).mtimeMs > 10 * 60 * 1000) rmSync(lockDir, { recursive: true, force: true }); } catch {}
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir}`);
      sleep(200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

let installed = null;

// The two tarballs in a folder, told apart by name.
function findTarballs(dir) {
  const all = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  const engine = all.filter((f) => /^seq2seq-wasm-\d/.test(f));
  const models = all.filter((f) => /^seq2seq-wasm-models-\d/.test(f));
  if (engine.length !== 1 || models.length !== 1 || all.length !== 2) throw new Error(`expected the two tarballs in ${dir}, found: ${all.join(', ')}`);
  return { tarball: join(dir, engine[0]), modelsTarball: join(dir, models[0]) };
}

/**
 * Packs both packages (npm pack of the engine runs prepack, which builds the
 * wasm) and installs the two tarballs offline into a scratch project. Returns
 * {project, tarball, modelsTarball, files, modelFiles, packageDir, modelsDir,
 * importPackage(subpath), resolvePackage(subpath), resolve(specifier)}: the
 * resolvers resolve from the scratch project, exactly as a user's module there would.
 */
export function installPackage() {
  if (installed) return installed;
  // A test run (scripts/test.sh) installs once before its test files start and names the
  // project in SEQ2SEQ_SCRATCH_PROJECT: each file then skips the two `npm pack --dry-run`s
  // and the hash that find it (2 s a file, twenty-odd files).
  const named = process.env.SEQ2SEQ_SCRATCH_PROJECT;
  const project = named && existsSync(join(named, PACKED)) ? named : packAndInstall();
  const { files, modelFiles } = JSON.parse(readFileSync(join(project, PACKED), 'utf8'));
  const { tarball, modelsTarball } = findTarballs(project);
  // A module inside the scratch project: its bare imports resolve like a user's.
  const resolver = join(project, 'resolve.mjs');
  if (!existsSync(resolver)) writeFileSync(resolver, 'export const resolve = (s) => import.meta.resolve(s);\n');
  let resolveIn = null;
  const resolve = async (specifier) => {
    resolveIn ??= (await import(pathToFileURL(resolver).href)).resolve;
    return resolveIn(specifier);
  };
  installed = {
    project,
    tarball,
    modelsTarball,
    files,
    modelFiles,
    resolve,
    resolvePackage: (subpath = '') => resolve(`seq2seq-wasm${subpath}`),
    importPackage: async (subpath = '') => import(await resolve(`seq2seq-wasm${subpath}`)),
    packageDir: join(project, 'node_modules/seq2seq-wasm'),
    modelsDir: join(project, 'node_modules/seq2seq-wasm-models'),
  };
  return installed;
}

/** What the scratch project was packed from: both packages' file lists (its folder is named by their hash). */
const PACKED = 'packed.json';

/** Packs and installs the scratch project for the packages' current files, unless it exists; returns its folder. */
function packAndInstall() {
  const files = packFileList(ROOT);
  const modelFiles = packFileList(MODELS_PACKAGE);
  const hash = createHash('sha256');
  for (const [dir, list] of [[ROOT, files], [MODELS_PACKAGE, modelFiles]]) {
    for (const f of list) hash.update(dir).update('\0').update(f).update('\0').update(readFileSync(join(dir, f)));
  }
  const key = hash.digest('hex').slice(0, 16);
  const base = join(tmpdir(), 'seq2seq-wasm-tests');
  mkdirSync(base, { recursive: true });
  const project = join(base, `project-${key}`);
  withLock(join(base, 'lock'), () => {
    if (existsSync(join(project, PACKED))) return;
    for (const old of readdirSync(base)) if (old.startsWith('project-')) rmSync(join(base, old), { recursive: true, force: true });
    const work = `${project}.partial`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    // npm pack runs prepack (scripts/build-wasm.sh: an incremental build),
    // whose output would be mixed into --json: the tarballs are found instead.
    execFileSync(NPM, ['pack', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    execFileSync(NPM, ['pack', '--pack-destination', work], { cwd: MODELS_PACKAGE, encoding: 'utf8', stdio: 'pipe' });
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'scratch-user', private: true, type: 'module' }, null, 2));
    const { tarball, modelsTarball } = findTarballs(work);
    execFileSync(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball, modelsTarball], {
      cwd: work, encoding: 'utf8', stdio: 'pipe',
    });
    // Written last: its presence says the project is whole.
    writeFileSync(join(work, PACKED), JSON.stringify({ files, modelFiles }));
    renameSync(work, project);
  });
  return project;
}

// `node tests/node/helpers.mjs --install`: installs the scratch project and prints its folder.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--install') {
  console.log(packAndInstall());
}

/** The native CLI (build/native/seq2seq, or $SEQ2SEQ_CLI). */
export function cliPath() {
  const p = process.env.SEQ2SEQ_CLI || join(ROOT, 'build/native/seq2seq');
  if (!existsSync(p)) {
    throw new Error(`native CLI not found at ${p}: cmake -S . -B build/native && cmake --build build/native -j2 --target seq2seq`);
  }
  return p;
}

/** Runs the CLI; returns stdout (throws with stderr on failure). */
export function runCli(args, input) {
  const r = spawnSync(cliPath(), args, { input: input ?? '', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`seq2seq ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

const SHIPPED = {
  ar: join(MODELS_PACKAGE, 'g2p-transformer.safetensors'),
  cmlm: join(MODELS_PACKAGE, 'g2p-cmlm.safetensors'),
};
const FIXTURE = {
  ar: join(FIXTURES, 'ar_pre_sin_tied_relu_f16.safetensors'),
  cmlm: join(FIXTURES, 'cmlm_pre_sin_tied_relu.safetensors'),
};

/** The shipped model of this kind ('ar' | 'cmlm') when present, a fixture model otherwise. */
export function modelPath(kind) {
  return existsSync(SHIPPED[kind]) ? SHIPPED[kind] : FIXTURE[kind];
}
export function isShipped(path) {
  return dirname(path) === MODELS_PACKAGE;
}

/** Every model to check against the native CLI: the shipped ones (models/*.safetensors) and all fixtures. */
export function parityModels() {
  const list = (dir) => readdirSync(dir).filter((f) => f.endsWith('.safetensors')).sort().map((f) => join(dir, f));
  // The trainer's fixtures (train_*: initial weights, gradients and updated weights of a
  // step) are parameter files, not models: they carry no model config to load.
  return [...list(MODELS_PACKAGE), ...list(FIXTURES).filter((p) => !basename(p).startsWith('train_'))];
}

const G2P_WORDS = ['PHONEME', 'HELLO', 'WORLD', 'SEQUENCE', 'TRANSFORMER', "O'BRIEN", 'WEBASSEMBLY', 'MASK', 'BEAM',
  'GREEDY', 'ZYZZYVA', 'ANTIDISESTABLISHMENTARIANISM', 'A', 'X-RAY', 'ST.', 'LEARNER'];
const FIXTURE_WORDS = ['ABC', 'FACADE', 'BAGGED', 'DEAF', 'CAGE', 'GA-GA', 'E.', "B'D", 'G', 'DECADE', 'ACCEDED', 'FEED'];

// Words in no vocabulary: a word-level model reads them as its unk, and a copy model can copy them.
const UNKNOWN_WORDS = ['kuroro', 'zed', 'quux'];

/** Words every character of which each given model reads (its sourceVocab):
 * a shipped G2P model and a fixture standing in for another kind read different
 * alphabets, and a test that feeds one word to both needs words both can read.
 * Word-level models (sourceTokens 'words', all of them with one source vocabulary)
 * get phrases of their own source words and words in no vocabulary instead. */
export function wordsFor(...infos) {
  const count = typeof infos.at(-1) === 'number' ? infos.pop() : Infinity;
  if (infos.some((info) => info.sourceTokens === 'words')) {
    const vocab = infos[0].sourceVocab;
    if (!infos.every((info) => info.sourceTokens === 'words' && info.sourceVocab.join(' ') === vocab.join(' '))) return [];
    const specials = new Set(Object.values(infos[0].sourceSpecials));
    const known = vocab.filter((w, i) => !specials.has(i));
    const phrases = [];
    for (let i = 0; i < Math.min(count, 12); i++) {
      const words = [known[i % known.length], known[(3 * i + 1) % known.length], UNKNOWN_WORDS[i % UNKNOWN_WORDS.length]];
      if (i % 4 === 3) words.push(UNKNOWN_WORDS[(i + 1) % UNKNOWN_WORDS.length], words[2]);  // an unknown word twice
      phrases.push(words.slice(0, infos[0].maxPositions).join(' '));
    }
    return phrases;
  }
  const fits = (info) => {
    const alphabet = new Set(info.sourceVocab);
    return (w) => [...w].every((c) => alphabet.has(c)) && w.length <= info.maxPositions;
  };
  const words = [...G2P_WORDS, ...FIXTURE_WORDS].filter((w) => infos.every((info) => fits(info)(w)));
  return words.slice(0, count);
}

/**
 * An assert.throws/rejects validator: the error is an instance of the package's
 * `Seq2SeqError` class (the caller's import of it), of that kind, its message
 * matching `message` where given.
 */
export const seqErrorOf = (Seq2SeqError) => (kind, message) => (e) => {
  assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'Seq2SeqError');
  assert.equal(e.kind, kind, `kind of: ${e.message}`);
  if (message) assert.match(e.message, message);
  return true;
};

/** Scores agree within an absolute 1e-4. */
export function close(a, b, tol = 1e-4) {
  return Math.abs(a - b) <= tol;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
};

/**
 * A static HTTP server on 127.0.0.1 for the given {urlPath: filePath}, and with
 * `dir` every file below it (a path ending in / serves its index.html); other
 * paths get 404. `contentLength: false` sends the body in two chunks with no
 * Content-Length (chunked transfer). Resolves to {base, requests, close()}:
 * `requests` counts the requests for each path.
 */
export function serveFiles(files, { dir, contentLength = true } = {}) {
  const requests = new Map();
  const server = createServer((req, res) => {
    let pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.set(pathname, (requests.get(pathname) ?? 0) + 1);
    if (dir && pathname.endsWith('/')) pathname += 'index.html';
    let path = files[pathname];
    if (!path && dir) {
      const inside = normalize(join(dir, pathname));
      if (inside.startsWith(join(dir, '/')) && existsSync(inside) && statSync(inside).isFile()) path = inside;
    }
    if (!path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = readFileSync(path);
    const headers = { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' };
    if (!contentLength) {
      res.writeHead(200, headers);
      res.write(body.subarray(0, body.length >> 1));
      res.end(body.subarray(body.length >> 1));
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': body.length }).end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        base: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((r) => {
          server.closeAllConnections();   // browsers keep connections alive
          server.close(r);
        }),
      });
    });
  });
}

/**
 * A server on 127.0.0.1 that stalls: it answers every request with a Content-Length
 * of `length` and the first `sent` bytes of zeros, then sends nothing more (with
 * `headers: false`, not even its headers). `requested` settles once a request has
 * come and its bytes are written; `closed` once the client has dropped the connection.
 */
export async function stallingServer({ length = 100_000, sent = 1000, headers = true } = {}) {
  let asked;
  let dropped;
  const requested = new Promise((resolve) => { asked = resolve; });
  const closed = new Promise((resolve) => { dropped = resolve; });
  const server = createServer((req, res) => {
    req.socket.on('close', dropped);
    if (!headers) {
      asked();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': length });
    res.write(new Uint8Array(sent), () => asked());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/stalled.safetensors`,
    requested,
    closed,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

export { dirname, join };
