#!/usr/bin/env node
// A tiny static file server for the built page (no dependencies).
//   node scripts/serve.mjs [DIR] [--port N] [--host H]
// DIR defaults to build/site; port 8080 (PORT env too; 0 picks a free one).
// Sends gzip when the browser accepts it (the build's precompressed file.gz, or
// compressed once here and kept in memory),
// ETags for revalidation, and the MIME types module scripts and
// WebAssembly.instantiateStreaming insist on. Prints "serving http://HOST:PORT/".
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';

const gzipAsync = promisify(gzip);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let dir = join(root, 'build/site');
let port = Number(process.env.PORT ?? 8080);
let host = '127.0.0.1';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--port') port = Number(args[++i]);
  else if (args[i] === '--host') host = args[++i];
  else dir = resolve(args[i]);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve: bad port ${port}`);
  process.exit(2);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.tsv': 'text/tab-separated-values; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.safetensors': 'application/octet-stream',
};
const COMPRESS = new Set(['.html', '.js', '.mjs', '.css', '.json', '.tsv', '.txt', '.svg', '.wasm', '.safetensors']);
const cache = new Map();   // path -> {mtimeMs, body, gz, etag}

async function load(path) {
  const st = await stat(path);
  if (!st.isFile()) return null;
  const hit = cache.get(path);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit;
  const body = await readFile(path);
  const entry = { mtimeMs: st.mtimeMs, size: st.size, body, gz: null,
    etag: '"' + createHash('sha1').update(body).digest('base64url').slice(0, 20) + '"' };
  if (COMPRESS.has(extname(path)) && body.length > 512) {
    // A precompressed twin (scripts/build-web.mjs writes them) if it is current, else compress once here.
    const twin = await stat(`${path}.gz`).catch(() => null);
    if (twin && twin.mtimeMs >= st.mtimeMs) entry.gz = await readFile(`${path}.gz`);
    else {
      const gz = await gzipAsync(body, { level: 6 });
      if (gz.length < body.length * 0.95) entry.gz = gz;
    }
  }
  cache.set(path, entry);
  return entry;
}

const server = createServer(async (req, res) => {
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    let pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (pathname.endsWith('/')) pathname += 'index.html';
    const path = normalize(join(dir, pathname));
    if (path !== dir && !path.startsWith(dir + sep)) {
      res.writeHead(403).end();
      return;
    }
    let entry;
    try {
      entry = await load(path);
    } catch {
      entry = null;
    }
    if (!entry) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    const headers = {
      'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
      'Cache-Control': 'no-cache',
      ETag: entry.etag,
      Vary: 'Accept-Encoding',
      'X-Content-Type-Options': 'nosniff',
    };
    if (req.headers['if-none-match'] === entry.etag) {
      res.writeHead(304, headers).end();
      return;
    }
    let body = entry.body;
    if (entry.gz && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      body = entry.gz;
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(String(e?.message ?? e));
  }
});

server.on('error', (e) => {
  console.error(`serve: ${e.message}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const a = server.address();
  console.log(`serving http://${host}:${a.port}/  (${dir})`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
