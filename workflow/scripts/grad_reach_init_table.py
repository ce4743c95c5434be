"""Rule grad_reach_init_table (gatedrnn.analysis.reach.grad_reach_init): B1, all 100 steps."""

from gatedrnn.analysis.reach import grad_reach_init
from gatedrnn.scripting import run_logged


def main(log):
    table = grad_reach_init()
    table.to_csv(snakemake.output.table, index=False, float_format=None)
    wide = table.pivot(index="step", columns="model", values="grad_norm")
    log(wide.loc[[99, 75, 50, 25, 0]].to_string(float_format=lambda v: f"{v:.2g}"))


run_logged(snakemake.log[0], main)
