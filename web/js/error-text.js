// An error as the page shows it, in the page's language. Three sources:
// - boot.js's own failures carry `key` and `params` (web/i18n/*.js): boot.js runs
//   before the language files load, so it names its message instead of writing it;
// - the npm module's Seq2SeqError (and the worker's replies) carry a `kind`
//   (wasm/src/errors.js) and an English detail: a sentence per kind in the
//   page's language, then the module's detail, which says what exactly;
// - the page's own messages are written with t() already, and shown as they are.
import { t } from './i18n.js';

const KIND_KEYS = {
  UsageError: 'moderr.UsageError',
  ModelError: 'moderr.ModelError',
  InputError: 'moderr.InputError',
  NetworkError: 'moderr.NetworkError',
  WasmError: 'moderr.WasmError',
  OutOfMemory: 'moderr.OutOfMemory',
  WorkerError: 'moderr.WorkerError',
  Cancelled: 'moderr.Cancelled',
  Error: 'moderr.Error',
};

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export function errorText(e) {
  if (typeof e?.key === 'string') return t(e.key, e.params);
  const detail = capital(String(e?.message ?? e));
  if (typeof e?.kind !== 'string') return detail;
  const what = t(Object.hasOwn(KIND_KEYS, e.kind) ? KIND_KEYS[e.kind] : KIND_KEYS.Error);
  return t('moderr.format', { what, detail });
}
