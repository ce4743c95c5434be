"""gatedrnn: the science behind the gated-recurrent-cell reproduction.

Subpackages by concern, each layer importing only the ones below it (the contract
in pyproject.toml, checked by ``lint-imports`` in the test command):

- :mod:`gatedrnn.core`      -- the model, the cells, data windows, widths, conventions, sizes, memory
- :mod:`gatedrnn.io`        -- the corpus (fetch, verify, assemble, read back), synthetic texts, atomic files
- :mod:`gatedrnn.train`     -- the training loop, checkpoints, the train rule's pipeline, prefix sharing
- :mod:`gatedrnn.analysis`  -- gate extraction, gradient reach, gate statistics, the closed forms
- :mod:`gatedrnn.tables`    -- the study's tables, the gate tables, the regime sweep's table
- :mod:`gatedrnn.questions` -- one module per open question, and their report
- :mod:`gatedrnn.claims`    -- the claims language and the ledger
- :mod:`gatedrnn.report`    -- figures and the results page
- :mod:`gatedrnn.plan`      -- the config turned into runs, file names and targets

the public API (docs/api.md), imported on first use so that ``import gatedrnn`` stays
cheap (no torch): :func:`gatedrnn.load` (a finished run's trained model),
:func:`gatedrnn.gates` (its named gates and states on any text) and
:class:`gatedrnn.RunNotFound`, all from :mod:`gatedrnn.api`;

and the workflow's tools: :mod:`gatedrnn.scripting` (rule-script glue),
:mod:`gatedrnn.code_version` (code as an input), :mod:`gatedrnn.reference`,
:mod:`gatedrnn.compare` and :mod:`gatedrnn.estimate`.
"""

__version__ = "0.3.0"

import importlib

# The public API, from gatedrnn.api when first asked for: it imports torch. Imported by
# name, not by an import statement, so that no rule's code version
# (gatedrnn.code_version follows import statements) takes in the API and what it imports.
_API = ("load", "gates", "RunNotFound", "TrainedModel", "Gates")


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module("gatedrnn.api"), name)
    raise AttributeError(f"module 'gatedrnn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
