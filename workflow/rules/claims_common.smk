# Helpers of claims.smk: where published.yaml is, what its placeholders stand for,
# and which tables it reads (computed when the DAG is built).

import os

import yaml

# Shipped with the workflow, so found beside the Snakefile whatever --directory is.
PUBLISHED = os.path.join(workflow.basedir, "config", "published.yaml")

# What published.yaml's {placeholders} stand for under this config.
CLAIM_MODELS = {
    "reference_lstm": model_id(*REFERENCE_LSTM),
    "width_matched_gru": model_id(*WIDTH_MATCHED_GRU),
    "budget_matched_gru": model_id(*BUDGET_MATCHED_GRU),
    "budget_matched_rnn": model_id("rnn", "budget"),
}


def published_tables(path=PUBLISHED):
    """Every `table:` that published.yaml names (claims, groups and compare sides);
    the regime-sensitivity table of `across_regimes` views is an input of its own."""

    def walk(node):
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
