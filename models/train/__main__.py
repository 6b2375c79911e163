"""/usr/bin/python3 -m models.train COMMAND [ARGS]  (from the repository root)

  build MODEL [--dry-run]   run a shipped model's chain (configs/MODEL.json)
  verify [MODEL ...]        sha256 and test WER/PER of the shipped files against
                            models/manifest.json and the model cards
  evaluate FILE             the full WER/PER table of a model file (C++ engine)

and the chain's single steps, each with its own --help:
  prepare-data, unlabeled-words, train-transformer, train-cmlm, train-rnn,
  train-student, distill, soft-targets, ensemble, export, eval-engine,
  parity, selfcheck
"""

import importlib
import sys

# command -> module of this package whose main(argv) runs it
COMMANDS = {
    "build": "build",
    "verify": "verify",
    "evaluate": "evaluate",
    "prepare-data": "prepare_data",
    "unlabeled-words": "unlabeled_words",
    "train-transformer": "train_transformer",
    "train-cmlm": "train_cmlm",
    "train-rnn": "train_rnn",
    "train-student": "train_student",
    "distill": "distill",
    "soft-targets": "soft_targets",
    "ensemble": "ensemble",
    "export": "export",
    "eval-engine": "eval_engine",
    "parity": "parity_check",
    "selfcheck": "selfcheck",
}


def run(command, argv):
    if command not in COMMANDS:
        raise SystemExit(f"unknown command {command!r}; one of: {', '.join(COMMANDS)}")
    module = importlib.import_module(f".{COMMANDS[command]}", __package__)
    rc = module.main(argv)
    return rc if isinstance(rc, int) else 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    return run(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main())
