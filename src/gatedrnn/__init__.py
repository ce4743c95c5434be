"""gatedrnn: the science behind the gated-recurrent-cell reproduction.

Modules (each importable and unit-tested on its own):

- :mod:`gatedrnn.core.model`   -- the character-level language model and parameter counts
- :mod:`gatedrnn.core.widths`  -- budget-matched widths computed from the vocabulary
- :mod:`gatedrnn.core.data`    -- vocabulary, train/validation split, seeded window sampling
- :mod:`gatedrnn.io.corpus`  -- fetching, verifying and assembling the corpus
- :mod:`gatedrnn.train.loop`   -- the training loop with atomic, resumable checkpoints
- :mod:`gatedrnn.config`  -- the training configuration as plain data
"""

__version__ = "0.1.0"
