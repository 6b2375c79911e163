// The rules the first lane's model is chosen by, shared by the page (address.js,
// lane.js) and boot.js, into which scripts/build-web.mjs inlines this file's
// text (its `export`s dropped): so it imports nothing and names no browser API.

/**
 * One `lane` parameter of the address ("beam:beamSize=5,lengthNorm=gnmt") as its type and its
 * key=value pairs, values decoded ("+" a space; a malformed escape kept as it is).
 */
export function splitLaneParam(s) {
  const i = s.indexOf(':');
  const type = i < 0 ? s : s.slice(0, i);
  const pairs = [];
  if (i >= 0) {
    for (const kv of s.slice(i + 1).split(',')) {
      const j = kv.indexOf('=');
      if (j < 0) continue;
      let v = kv.slice(j + 1).replace(/\+/g, ' ');
      try { v = decodeURIComponent(v); } catch { /* keep as is */ }
      pairs.push([kv.slice(0, j), v]);
    }
  }
  return { type, pairs };
}

/** A model id as the address may hold one: word characters, dots and dashes. */
export function cleanModelId(value) {
  return String(value ?? '').replace(/[^\w.-]/g, '');
}

/** The model a lane decodes with: the one it names, if of its kind (ar), else the first of its kind. */
export function pickModel(models, ar, id) {
  return models.find((m) => m.id === id && m.autoregressive === ar) ?? models.find((m) => m.autoregressive === ar);
}
