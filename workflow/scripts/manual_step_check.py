"""Rule manual_step_check (gatedrnn.tables.gates.manual_step_check_table): C1."""

from gatedrnn.io.records import read_gate_check
from gatedrnn.scripting import run_logged
from gatedrnn.tables.gates import manual_step_check_table


def main(log):
    checks = [read_gate_check(path) for path in snakemake.input.checks]
    table = manual_step_check_table(checks)
    table.to_csv(snakemake.output[0], index=False, float_format=None)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
