// A TypeScript user of seq2seq-wasm-models: the manifest module and the
// phonemizer (seq2seq-wasm-models/g2p), with the types spelled out. Checked and
// run by tests/node/types.test.mjs with consumer.ts.
import { loadModel, Seq2SeqError } from 'seq2seq-wasm';
import type { Model, ModelSource } from 'seq2seq-wasm';
import { createDecoderWorker } from 'seq2seq-wasm/worker';
import manifest from 'seq2seq-wasm-models';
import type { Manifest, ModelEntry } from 'seq2seq-wasm-models';
import { ARPABET_IPA, MODEL_NAMES, arpabetToIpa, createPhonemizer, loadLexicon, stripStress } from 'seq2seq-wasm-models/g2p';
import type { BatchDecoder, Lexicon, PhonemeSource, PhonemeToken, Phonemizer, PhonemizerOptions, PhonemizeResult } from 'seq2seq-wasm-models/g2p';

/** One line per token: text, source, phonemes (stress digits stripped when unknown), IPA. */
export function lines(result: PhonemizeResult): string[] {
  return result.tokens.map((t: PhonemeToken) => {
    const source: PhonemeSource = t.source;
    const phones: string[] = t.stressed ? t.phonemes : stripStress(t.phonemes);
    const spoken: string = t.spoken ?? '';
    const error: string = t.error ? `${t.error.kind}: ${t.error.message}` : '';
    return [t.text, source, phones.join(' '), t.ipa, spoken, error, String(t.alternatives.length)].join('\t');
  });
}

export async function phonemize(text: string, modelFile: ModelSource): Promise<{ result: PhonemizeResult; viaModel: PhonemizeResult; viaWorker: PhonemizeResult; entry: ModelEntry }> {
  const all: Readonly<Manifest> = manifest;
  const entry: ModelEntry | undefined = all.models.find((m) => m.name === MODEL_NAMES.plain);
  if (!entry) throw new Error('no g2p-transformer in the manifest');
  const options: PhonemizerOptions = { stress: false, loadOptions: { compute: 'auto' } };
  const g2p: Phonemizer = await createPhonemizer(options);
  const result: PhonemizeResult = await g2p.phonemize(text);
  const lexicon = g2p.lexicon;
  const words: number = lexicon && 'size' in lexicon ? (lexicon as Lexicon).size : 0;
  if (words < 100000) throw new Error(`a lexicon of ${words} words`);
  g2p.delete();

  const model: Model = await loadModel(modelFile);
  const decoder: BatchDecoder = model;
  const viaModel: PhonemizeResult = await (await createPhonemizer({ model: decoder, decoding: entry.decoding })).phonemize(text);
  model.delete();

  const worker = createDecoderWorker();
  const viaWorker: PhonemizeResult = await (await createPhonemizer({ worker })).phonemize(text);
  await worker.terminate();
  return { result, viaModel, viaWorker, entry };
}

export async function misuse(): Promise<string[]> {
  const lexicon: Lexicon = await loadLexicon();
  const prons: string[][] | undefined = lexicon.lookup('colonel');
  const ipa: string = arpabetToIpa(prons?.[0] ?? []);
  const table: Readonly<Record<string, string>> = ARPABET_IPA;
  const out = [ipa, table.AH0 ?? ''];
  try {
    // @ts-expect-error the text is a string
    await (await createPhonemizer()).phonemize(42);
  } catch (e) {
    if (e instanceof Seq2SeqError) out.push(e.kind);
  }
  // @ts-expect-error stress is a boolean
  const bad: PhonemizerOptions = { stress: 'yes' };
  // @ts-expect-error sources are the five names
  const source: PhonemeSource = 'dictionary';
  try {
    // @ts-expect-error the manifest is read-only (and frozen)
    manifest.models = [];
  } catch (e) {
    if (e instanceof TypeError) out.push('frozen');
  }
  void bad;
  void source;
  return out;
}
