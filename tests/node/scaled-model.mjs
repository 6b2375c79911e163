// Fixture models edited on the fly: some of their weights multiplied, for tests
// of models whose finite weights overflow float arithmetic
// (tests/native/test_decode_errors.cpp builds the same ones), or their config
// changed, for tests of what the loader refuses (tests/native/model_bytes.h).
import { readFileSync } from 'node:fs';
import { FIXTURES, join } from './helpers.mjs';

/** The bytes of tests/fixtures/NAME.safetensors with its config passed through edit(config) (which changes it in place). */
export function editedConfig(name, edit) {
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, `${name}.safetensors`)));
  const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const config = JSON.parse(header.__metadata__.config);
  edit(config);
  header.__metadata__.config = JSON.stringify(config);
  const text = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + bytes.length - 8 - headerLength);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(bytes.subarray(8 + headerLength), 8 + text.length);
  return out;
}

const FLOAT_MAX = 3.4e38;

/** The bytes of tests/fixtures/NAME.safetensors with every F32 tensor whose name holds `part` times `factor` (clamped to ±3.4e38). */
export function scaledFixture(name, part, factor) {
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, `${name}.safetensors`)));
  const view = new DataView(bytes.buffer);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  for (const [tensor, t] of Object.entries(header)) {
    if (tensor === '__metadata__' || !tensor.includes(part) || t.dtype !== 'F32') continue;
    const [begin, end] = t.data_offsets.map((o) => 8 + headerLength + o);
    for (let at = begin; at < end; at += 4) {
      view.setFloat32(at, Math.max(-FLOAT_MAX, Math.min(FLOAT_MAX, view.getFloat32(at, true) * factor)), true);
    }
  }
  return bytes;
}

/** The blown-up models of the tests: name, bytes, and what the error names. */
export const OVERFLOWING = [
  ['autoregressive transformer', () => scaledFixture('ar_post_sin_tied_relu', 'decoder.layers.1.ffn', 1e20), 'output position 1'],
  ['RNN', () => scaledFixture('rnn_dot', 'out.weight', 1e39), 'output position 1'],
  ['CMLM decoder', () => scaledFixture('cmlm_pre_sin_tied_relu', 'decoder.layers.1.ffn', 1e20), 'output position 1'],
  ['CMLM length head', () => scaledFixture('cmlm_pre_sin_tied_relu', 'encoder.layers.1.ffn', 1e20), 'the target lengths'],
];
