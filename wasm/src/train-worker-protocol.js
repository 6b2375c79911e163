// The trainer worker's protocol as a pure message handler (no Worker API here, as
// worker-protocol.js for decoding), behind a worker's port in train-worker.js and
// in-process in tests.
//
// Requests carry an id the replies repeat:
//   {id, type: 'hello'}                        -> value: {protocol}: the client's start-up handshake
//   {id, type: 'create', config, wasmUrl}      -> value: TrainerInfo (createTrainer(config) in the worker; the trainer
//                                                 it had is disposed once the new one stands)
//   {id, type: 'train', every, probe}          -> value: {status: 'done' | 'paused', record}; {id, progress: record}
//                                                 after each `every` steps (default logEvery) first, with record.probe
//                                                 when asked (the value's record is the last, without its probe); it
//                                                 yields to the event loop between them
//   {id, type: 'pause'}                        -> value: {paused}: a train in progress (or queued) ends at the next
//                                                 record boundary (the record it is computing is finished first)
//                                                 with status 'paused'; train again to resume
//   {id, type: 'cancel'}                       -> value: {cancelled}: a train in progress (or queued) fails with kind
//                                                 'Cancelled' at its next record, and the trainer is disposed
//   {id, type: 'step', n, probe}               -> value: ProgressRecord (Trainer.step)
//   {id, type: 'probe', index}                 -> value: Probe (its typed arrays transferred)
//   {id, type: 'info' | 'evaluate' | 'heldOut'} -> value: Trainer.info, .evaluate(), .heldOut()
//   {id, type: 'export', int8}, {id, type: 'checkpoint'}
//                                              -> value: Uint8Array (transferred)
//   {id, type: 'dispose'}                      -> value: null
// Replies: {id, ok: true, value} or {id, ok: false, error: {name, message, kind, option, range, step}}.
// Requests are handled one at a time, in order, except hello, pause and cancel, which act at once.
import { createTrainer } from './train.js';
import { Seq2SeqError, describe, usageError } from './errors.js';

export const TRAINER_PROTOCOL_VERSION = 1;
const REQUEST_TYPES = new Set(['hello', 'create', 'train', 'pause', 'cancel', 'step', 'probe', 'info', 'evaluate', 'heldOut',
  'export', 'checkpoint', 'dispose']);

const yieldTurn = typeof setImmediate === 'function' ? () => new Promise((resolve) => setImmediate(resolve))
  : () => new Promise((resolve) => setTimeout(resolve, 0));

function errorData(e) {
  const data = { name: String(e?.name ?? 'Error'), message: String(e?.message ?? e), kind: typeof e?.kind === 'string' ? e.kind : undefined };
  for (const k of ['option', 'range', 'step']) if (e && e[k] !== undefined) data[k] = e[k];
  return data;
}

const probeBuffers = (p) => (p ? [p.tokenNll.buffer, p.crossAttention.buffer] : []);

/** A message handler for the trainer worker; `post(message, transfer)` sends a reply. */
export function createTrainerHandler(post, { create = createTrainer } = {}) {
  if (typeof post !== 'function') throw usageError(`createTrainerHandler(post) needs a function to post replies with; got ${describe(post)}`);
  let trainer = null;
  let queue = Promise.resolve();
  let pauseAsked = false;
  let cancelAsked = false;
  let training = 0;   // trains queued or running

  const reply = (id, value, transfer = []) => post({ id, ok: true, value }, transfer);
  const fail = (id, e) => post({ id, ok: false, error: errorData(e) }, []);

  function live(what) {
    if (!trainer) throw usageError(`${what}: no trainer: create(config) first${cancelAsked ? ' (a cancel disposed the last one)' : ''}`);
    return trainer;
  }

  async function doTrain(id, { every, probe }) {
    const t = live('train');
    let record = null;
    for (;;) {
      if (cancelAsked) {
        t.dispose();
        if (trainer === t) trainer = null;
        throw new Seq2SeqError('the training run was cancelled', 'Cancelled');
      }
      if (pauseAsked) return { status: 'paused', record };
      if (t.done) return { status: 'done', record };
      const r = t.step(every, { probe });
      post({ id, progress: r }, probeBuffers(r.probe));
      // The probe went with the progress (its buffers transferred): the end's record is the rest.
      record = { ...r };
      delete record.probe;
      await yieldTurn();
    }
  }

  function enqueue(task) {
    const result = queue.then(task);
    queue = result.catch(() => {});
    return result;
  }

  return function handle(message) {
    const id = message && typeof message === 'object' ? message.id : undefined;
    const type = message && typeof message === 'object' ? message.type : undefined;
    if (!REQUEST_TYPES.has(type)) {
      fail(id, usageError(`unknown request ${JSON.stringify(type)} (known: ${[...REQUEST_TYPES].join(', ')})`));
      return Promise.resolve();
    }
    if (type === 'hello') {
      reply(id, { protocol: TRAINER_PROTOCOL_VERSION });
      return Promise.resolve();
    }
    if (type === 'pause' || type === 'cancel') {
      const running = training > 0;
      if (type === 'pause' && running) pauseAsked = true;
      if (type === 'cancel') {
        cancelAsked = true;
        // Nothing training: the trainer is disposed in turn, after what is queued.
        if (!running) enqueue(() => { trainer?.dispose(); trainer = null; });
      }
      reply(id, type === 'pause' ? { paused: running } : { cancelled: running });
      return Promise.resolve();
    }
    if (type === 'train') training += 1;
    return enqueue(async () => {
      switch (type) {
        case 'create': {
          const next = await create(message.config, message.wasmUrl == null ? {} : { wasmUrl: message.wasmUrl });
          trainer?.dispose();
          trainer = next;
          cancelAsked = false;
          return reply(id, trainer.info);
        }
        case 'train': {
          try {
            return reply(id, await doTrain(id, message));
          } finally {
            training -= 1;
            if (training === 0) pauseAsked = false;
          }
        }
        case 'step': {
          const record = live('step').step(message.n, { probe: message.probe });
          return reply(id, record, probeBuffers(record.probe));
        }
        case 'probe': {
          const p = live('probe').probe(message.index ?? 0);
          return reply(id, p, probeBuffers(p));
        }
        case 'info': return reply(id, live('info').info);
        case 'evaluate': return reply(id, live('evaluate').evaluate());
        case 'heldOut': return reply(id, live('heldOut').heldOut());
        case 'export': {
          const bytes = live('export').export({ int8: message.int8 ?? false });
          return reply(id, bytes, [bytes.buffer]);
        }
        case 'checkpoint': {
          const bytes = live('checkpoint').checkpoint();
          return reply(id, bytes, [bytes.buffer]);
        }
        default:   // dispose
          trainer?.dispose();
          trainer = null;
          return reply(id, null);
      }
    }).catch((e) => fail(id, e));
  };
}
