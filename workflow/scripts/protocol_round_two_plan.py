"""Checkpoint protocol_round_two_plan (gatedrnn.plan.round_two): the points round two
trains, around every regime on round one's front or near it."""

import pandas as pd

from gatedrnn.plan.round_two import round_two_points
from gatedrnn.scripting import run_logged


def main(log):
    points = round_two_points(pd.read_csv(snakemake.input.front), snakemake.params.config)
    points.to_csv(snakemake.output.table, index=False)
    log(f"round two: {len(points)} points around {list(dict.fromkeys(points['from_regime']))}")
    log(points.to_string(index=False))


run_logged(snakemake.log[0], main)
