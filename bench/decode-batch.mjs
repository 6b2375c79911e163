#!/usr/bin/env node
// decodeBatch against a loop of decode(): words per second of each, in Node on
// the npm module's wasm (this checkout's wasm/src and wasm/dist), in-process
// and through the decoder worker. From the root of a checkout, after
// scripts/build-wasm.sh:
//
//   node bench/decode-batch.mjs [--words N] [--rounds R] [--model PATH] [--data FILE]
//
// The first N (500) distinct words of the CMUdict test split (--data; default
// models/data/cmudict-0.7b.test), g2p-transformer (--model), greedy and beam 5.
// Each round times, per strategy and face, the loop and the batch back to back,
// in alternating order (loop first in even rounds, batch first in odd ones) so
// that a drift in the machine's load hits both alike; the ratio is taken per
// round (batch words/s over loop words/s), and the medians over R (5) rounds
// are printed. Both per CPU second of the process (process.cpuUsage(): all its
// threads, the worker's included; on a shared machine it moves less than wall
// time) and per wall second.
//
//   in-process: loop  = words.map((w) => model.decode(w, options))
//               batch = model.decodeBatch(words, options)
//   in-process, window 1:
//               loop  = the batch with one source in flight at a time (each word
//                       stepped alone inside the same single engine call)
//   worker:     loop  = for each word, await decoder.start(w, options), then await decoder.run()
//               batch = await decoder.decodeBatch(words, options, { onProgress })
//
// Both give the same results (checked in the first round).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: {
    words: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '5' },
    model: { type: 'string', default: join(ROOT, 'models/g2p-transformer.safetensors') },
    data: { type: 'string', default: join(ROOT, 'models/data/cmudict-0.7b.test') },
  },
});
const N = Number(opt.words);
const ROUNDS = Number(opt.rounds);

const { loadModel } = await import(pathToFileURL(join(ROOT, 'wasm/src/index.js')).href);
const { createDecoderWorker } = await import(pathToFileURL(join(ROOT, 'wasm/src/worker-client.js')).href);

const modelPath = resolve(opt.model);
const model = await loadModel(modelPath);
const fits = (w) => w.length <= model.info.maxPositions;
const lines = readFileSync(opt.data, 'utf8').split('\n');
const words = [...new Set(lines.map((l) => l.split(/\s+/)[0]).filter(Boolean))].filter(fits).slice(0, N);
if (words.length < N) throw new Error(`${N} words asked for; ${opt.data} has ${words.length}`);

const decoder = createDecoderWorker();
await decoder.load(modelPath);

const STRATEGIES = [['greedy', { strategy: 'greedy' }], ['beam 5', { strategy: 'beam', beamSize: 5 }]];
const FACES = {
  'in-process': {
    loop: async (o) => words.map((w) => model.decode(w, o)),
    batch: async (o) => model.decodeBatch(words, o),
  },
  // The words stepped together alone: the same engine call with one source in
  // flight at a time against its default window (Session::run_batch).
  'in-process, window 1': {
    loop: async (o) => {
      const one = model._batchDecoder(o);
      try {
        return one.decode(words, 0, words.length, 1);
      } finally {
        one.delete();
      }
    },
    batch: async (o) => model.decodeBatch(words, o),
  },
  worker: {
    loop: async (o) => {
      const out = [];
      for (const w of words) {
        await decoder.start(w, o);
        out.push(await decoder.run());
      }
      return out;
    },
    batch: async (o) => {
      let last = null;
      const out = await decoder.decodeBatch(words, o, { onProgress: (p) => { last = p; } });
      assert.equal(last.done, words.length);
      return out;
    },
  },
};

async function timed(fn, o) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const out = await fn(o);
  const wall = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return { cpu: words.length / ((user + system) / 1e6), wall: words.length / wall, out };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`${model.info.name}, ${words.length} words (first of ${opt.data}), ${ROUNDS} rounds; Node ${process.versions.node}; ${cpus().length} CPUs "${cpus()[0]?.model}"; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
// A warm-up pass of each, untimed (JIT, wasm tier-up, the worker's first requests).
for (const face of Object.values(FACES)) for (const [, o] of STRATEGIES) {
  await face.loop(o);
  await face.batch(o);
}

const samples = {};   // "strategy / face" -> {cpu: {loop, batch, ratio}, wall: {...}}, each a list over rounds
const CLOCKS = ['cpu', 'wall'];
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, o] of STRATEGIES) {
    for (const [faceName, face] of Object.entries(FACES)) {
      const key = `${name} / ${faceName}`;
      samples[key] ??= Object.fromEntries(CLOCKS.map((c) => [c, { loop: [], batch: [], ratio: [] }]));
      const order = round % 2 === 0 ? ['loop', 'batch'] : ['batch', 'loop'];
      const r = {};
      for (const kind of order) r[kind] = await timed(face[kind], o);
      if (round === 0) assert.deepEqual(r.batch.out, r.loop.out, `${key}: decodeBatch and the loop disagree`);
      for (const c of CLOCKS) {
        samples[key][c].loop.push(r.loop[c]);
        samples[key][c].batch.push(r.batch[c]);
        samples[key][c].ratio.push(r.batch[c] / r.loop[c]);
      }
      console.log(`round ${round + 1} ${key}: words per CPU s: loop ${r.loop.cpu.toFixed(1)}, batch ${r.batch.cpu.toFixed(1)} (x${(r.batch.cpu / r.loop.cpu).toFixed(3)}); `
        + `per wall s: loop ${r.loop.wall.toFixed(1)}, batch ${r.batch.wall.toFixed(1)} (x${(r.batch.wall / r.loop.wall).toFixed(3)})`);
    }
  }
}

for (const c of CLOCKS) {
  console.log(`\nWords per ${c === 'cpu' ? 'CPU' : 'wall'} second, medians over ${ROUNDS} rounds:\n`);
  console.log('| strategy / face | loop | decodeBatch | decodeBatch / loop (median; each round) |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [key, s] of Object.entries(samples)) {
    const { loop, batch, ratio } = s[c];
    console.log(`| ${key} | ${median(loop).toFixed(1)} | ${median(batch).toFixed(1)} | ${median(ratio).toFixed(3)} (${ratio.map((x) => x.toFixed(2)).join(', ')}) |`);
  }
}
console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
model.delete();
await decoder.terminate();
