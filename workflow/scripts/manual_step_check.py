"""Rule manual_step_check (gatedrnn.gate_tables.manual_step_check_table): C1."""

import json

from gatedrnn.gate_tables import manual_step_check_table
from gatedrnn.scripting import run_logged


def main(log):
    checks = [json.loads(open(path).read()) for path in snakemake.input.checks]
    table = manual_step_check_table(checks)
    table.to_csv(snakemake.output[0], index=False, float_format=None)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
