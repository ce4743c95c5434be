"""The errors a rule script reports as one line naming the problem and the fix.

Kept in a module of their own, with no imports, so that the rule scripts' glue
(:mod:`gatedrnn.scripting`) does not import the corpus or training code: a rule's
code version (:mod:`gatedrnn.code_version`) covers only the modules it really runs.
"""


class CorpusError(RuntimeError):
    """Anything wrong with the corpus: the message names the problem and the fix."""


class TrainingDiverged(RuntimeError):
    """The loss stopped being finite: the run is worthless and leaves no model."""
