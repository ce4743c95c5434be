"""Rule regime_sensitivity_figure (gatedrnn.report.regimes.plot_regime_sensitivity)."""

import pandas as pd

from gatedrnn.claims import load_claims
from gatedrnn.report.published_marks import Published
from gatedrnn.report.regimes import plot_regime_sensitivity, published_marks, study_gap
from gatedrnn.scripting import run_logged, workflow_file


def main(log):
    claims = [
        claim.fill(snakemake.params.models)
        for claim in load_claims(workflow_file(snakemake, snakemake.params.published))
    ]
    marks = published_marks(claims, snakemake.input.table)
    table = pd.read_csv(snakemake.input.table)
    gap = study_gap(Published(claims), table)
    log(f"published values marked: {marks}; the study's GRU - LSTM gap: {gap and gap[0]}")
    plot_regime_sensitivity(table, marks, snakemake.output[0], gap)


run_logged(snakemake.log[0], main)
