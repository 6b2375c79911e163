// The page's lane types as the page itself sets them up: with each kind of model's
// measured decoding settings as the lanes' defaults (web/js/app.js calls
// useModelDecoding with models.json's `decoding`, which scripts/build-web.mjs copies
// from models/train/decoding.json). A test that builds a lane to compare with the
// page imports makeLane and moduleOptions from here, not from lane-types.js.
import { readFileSync } from 'node:fs';
import { makeLane, moduleOptions, useModelDecoding } from '../../web/js/lane-types.js';

const { why: _why, ...decoding } = JSON.parse(readFileSync(new URL('../../models/train/decoding.json', import.meta.url), 'utf8'));
useModelDecoding(decoding);

export { makeLane, moduleOptions };
