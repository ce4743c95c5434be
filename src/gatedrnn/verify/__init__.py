"""Does this machine reproduce the reference's bits? ``python -m gatedrnn.verify``.

- :mod:`gatedrnn.verify.fingerprint`: short trainings of every cell at small width
  under the pinned numerics, and the sha256 of their weights, against the committed
  ``tests/data/numerics_fingerprint_<cpu_isa>.json`` (seconds; the CPUs it has passed on).
- :mod:`gatedrnn.verify.against_reference`: the reference run's cheapest model trained
  again on the real corpus and compared with ``reference/manifest.json`` (minutes).

Neither imports torch at import time: the command pins the numerics
(:func:`gatedrnn.numerics.pin`) before anything starts torch.
"""
