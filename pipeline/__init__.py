"""gamebench: check solutions of combinatorial-game problems over large test corpora."""

__version__ = "0.1.0"
