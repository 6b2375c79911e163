// The engine's limits, written by scripts/gen-limits.mjs from src/model_limits.h (what each
// bounds and why is said there): edit the header, then run the script. No wasm is loaded
// for it, so that the worker client and the model downloader check them on the page's thread.
export const LIMITS = Object.freeze({
  maxModelBytes: 1073741824,
  maxHeaderBytes: 1048576,
  maxJsonDepth: 16,
  maxTensors: 8192,
  maxTensorRank: 8,
  maxWidth: 4096,  // d_model; the RNN's emb_dim, enc_hidden, dec_hidden, attn_dim
  maxHeads: 256,
  maxFeedForward: 16384,  // d_ff
  maxLayers: 64,  // Transformer encoder and decoder layers
  maxRnnLayers: 4,  // bidirectional GRU layers
  maxPositions: 4096,  // max_pos: the longest source and target
  maxVocab: 65536,  // entries in each vocabulary
  maxTextBytes: 65536,
  maxInsideValues: 16777216,
});
