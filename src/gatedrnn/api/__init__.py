"""Trained models, one call away (docs/api.md).

- :func:`load`: the trained model of a finished run, by name (``"default/lstm_w325_s0"``)
  or by path, with its training config, vocabulary and summary;
- :func:`gates`: its named gate activations and states on any text, as numpy arrays,
  with the characters they belong to;
- :class:`RunNotFound`: what ``load`` raises for a missing or foreign run, its message
  one line naming the ``snakemake`` target that builds it.

``import gatedrnn`` does not import this (nor torch): ``gatedrnn.load``, ``gatedrnn.gates``
and ``gatedrnn.RunNotFound`` import it when first used. ``python -m gatedrnn.api`` is the
same from the command line.
"""

from gatedrnn.api.activations import Gates, gates
from gatedrnn.api.runs import RunNotFound, TrainedModel, load

__all__ = ["Gates", "RunNotFound", "TrainedModel", "gates", "load"]
