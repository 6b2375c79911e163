// A TypeScript user of seq2seq-wasm/train and seq2seq-wasm/train-worker, the types
// spelled out; tests/node/types.test.mjs type-checks it (tsc --strict) and runs it.
import { loadModel } from 'seq2seq-wasm';
import { Seq2SeqError, TRAINING_OPTION_TABLE, Trainer, createTrainer, trainingDefaults } from 'seq2seq-wasm/train';
import type { Probe, ProgressRecord, TrainerConfig, TrainerInfo, TrainingOptionEntry, TrainingOptions, TrainingRow } from 'seq2seq-wasm/train';
import { TrainerWorker, createTrainerWorker } from 'seq2seq-wasm/train-worker';
import type { TrainEnd, TrainOptions } from 'seq2seq-wasm/train-worker';

const TINY: TrainerConfig = {
  task: 'copy', minLength: 2, maxLength: 4, layers: 1, heads: 2, dModel: 16, dFf: 32, batchSize: 8,
  evalSize: 10, evalEvery: 10, logEvery: 5, warmupSteps: 5, steps: 10,
};

/** Trains TINY in-process and in a worker; returns what each produced. */
export async function main(): Promise<{ records: ProgressRecord[]; probe: Probe; info: TrainerInfo; decoded: string; viaWorker: TrainEnd; errorKind: string; option: string | undefined }> {
  const defaults: Required<TrainingOptions> = trainingDefaults('names');
  const row: TrainingOptionEntry | undefined = TRAINING_OPTION_TABLE.find((o) => o.js === 'dModel');
  const rows: TrainingRow[] = ['CAT\tK AE T', ['DOG', ['D', 'AO', 'G']]];
  void rows;
  const trainer: Trainer = await createTrainer(TINY);
  const records: ProgressRecord[] = [];
  while (!trainer.done) records.push(trainer.step());
  const probe: Probe = trainer.probe(0);
  const withProbe: Probe | undefined = records[0].probe;
  void withProbe;
  const info: TrainerInfo = trainer.info;
  const model = await loadModel(trainer.export({ int8: false }));
  const decoded: string = model.decode('abc')[0].text;
  model.delete();
  trainer.dispose();
  // @ts-expect-error: the options are named, not any key
  void createTrainer({ dmodel: 16 }).catch(() => {});
  // @ts-expect-error: a task the trainer does not know
  const wrong: TrainerConfig = { task: 'translate' };
  void wrong;
  let errorKind = '';
  let option: string | undefined;
  try {
    await createTrainer({ ...TINY, dModel: 2 + defaults.dModel * 0 + (row ? 0 : 1) });
  } catch (e) {
    if (e instanceof Seq2SeqError) {
      errorKind = e.kind;
      option = e.option;
    }
  }
  const worker: TrainerWorker = createTrainerWorker();
  await worker.create(TINY);
  const options: TrainOptions = { onProgress: (r: ProgressRecord) => { void r.loss; }, probe: true };
  const viaWorker: TrainEnd = await worker.train(options);
  await worker.terminate();
  return { records, probe, info, decoded, viaWorker, errorKind, option };
}
