#!/bin/sh
# Train the four g2p-rnn-<score> models one after another (each resumes from its
# own checkpoint, and a finished one only prints its results), so this script can be
# re-run after an interruption. Extra arguments go to every train_rnn.py call, e.g.
# --threads 1 to leave a core to a Transformer run beside it.
set -e
cd "$(dirname "$0")/../.."
for score in dot multiplicative reduced_rank additive; do
  /usr/bin/python3 models/train/train_rnn.py --attention "$score" "$@"
done
