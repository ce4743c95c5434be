"""Rule model_normalisation (gatedrnn.questions.model_normalisation, gatedrnn.claims.overlay):
the study's model against the old one, on the tables the ledger reads from the comparison."""

from pathlib import Path

import pandas as pd

from gatedrnn.claims import load_claims
from gatedrnn.claims.overlay import verdicts_on_both
from gatedrnn.questions.common import write_table
from gatedrnn.questions.model_normalisation import normalisation_table
from gatedrnn.scripting import run_logged, workflow_file


def by_name(tables):
    return {Path(path).name: frame for path, frame in tables.items()}


def main(log):
    # both sets keyed by the ledger's own paths (results/tables/x.csv), the old model's
    # tables standing in for the study model's
    study = {path: pd.read_csv(path) for path in snakemake.input.study}
    old = {f"results/tables/{Path(path).name}": pd.read_csv(path) for path in snakemake.input.old}
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    verdicts = verdicts_on_both(claims, study, old, dict(snakemake.params.models))
    table = normalisation_table(by_name(study), by_name(old), verdicts)
    write_table(table, snakemake.output[0], log)


run_logged(snakemake.log[0], main)
