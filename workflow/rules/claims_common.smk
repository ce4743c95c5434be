# Helpers of claims.smk: where published.yaml is, what its placeholders stand for,
# and which tables it reads (computed when the DAG is built).

import os

import yaml

# Shipped with the workflow, so found beside the Snakefile whatever --directory is.
PUBLISHED = os.path.join(workflow.basedir, "config", "published.yaml")
# The answers to the open questions as ledger rows (rule: new), each under its
# question's switch: only the enabled questions' rows, and tables, are in the ledger.
NEW_FINDINGS = os.path.join(workflow.basedir, "config", "new_findings.yaml")
ENABLED_QUESTIONS = [
    question
    for question, settings in config["open_questions"].items()
    if isinstance(settings, dict) and settings.get("enabled")
]

# What published.yaml's {placeholders} stand for under this config.
CLAIM_MODELS = {
    "reference_lstm": model_id(*REFERENCE_LSTM),
    "width_matched_gru": model_id(*WIDTH_MATCHED_GRU),
    "budget_matched_gru": model_id(*BUDGET_MATCHED_GRU),
    "budget_matched_rnn": model_id("rnn", "budget"),
}


def published_tables(path=PUBLISHED, questions=None):
    """Every `table:` that published.yaml names (claims, groups and compare sides);
    the regime-sensitivity table of `across_regimes` views is an input of its own.
    `questions`: only the entries (or groups) without a `question:` or naming one of
    these (new_findings.yaml under the enabled questions)."""

    def walk(node):
        if isinstance(node, dict) and questions is not None:
            if node.get("question") is not None and node["question"] not in questions:
                return
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "table" and isinstance(value, str):
                    yield value
                elif key != "across_regimes":
                    yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    with open(path) as handle:
        # libyaml's safe loader where PyYAML has it: published.yaml is the largest
        # file read while the DAG is built (0.11 s with the pure-Python loader)
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return sorted(set(walk(yaml.load(handle, Loader=loader)["claims"])))
