"""The recipe of the shipped G2P models: data, the PyTorch models, training,
distillation, export, evaluation with the C++ engine, parity checks.

Run from the repository root as ``/usr/bin/python3 -m models.train COMMAND``
(``models/train/README.md``; ``python3 -m models.train --help`` lists the commands)."""
