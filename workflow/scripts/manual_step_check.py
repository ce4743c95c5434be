"""Rule manual_step_check (gatedrnn.tables.gates.manual_step_check_table): C1."""

import json

from gatedrnn.scripting import run_logged
from gatedrnn.tables.gates import manual_step_check_table


def main(log):
    checks = [json.loads(open(path).read()) for path in snakemake.input.checks]
    table = manual_step_check_table(checks)
    table.to_csv(snakemake.output[0], index=False, float_format=None)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
