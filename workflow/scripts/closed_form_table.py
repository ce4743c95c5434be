"""Rules *_table of closed_form.smk (gatedrnn.analysis.closed_form): one closed-form table, A1-A5.

``params.table`` names the table; each named output gets one CSV at full float64
precision (A5 has two: ``table``, the example, and ``check``, the numerical
check of the agreement condition).
"""

from gatedrnn.analysis import closed_form
from gatedrnn.scripting import run_logged

TABLES = {
    "highway": lambda: {"table": closed_form.highway()},
    "forget_bias_init": lambda: {"table": closed_form.forget_bias_init()},
    "cell_step_example": lambda: {"table": closed_form.cell_step_example()},
    "param_counts": lambda: {"table": closed_form.param_counts()},
    "gru_reset_placement": lambda: {
        "table": closed_form.gru_reset_placement(),
        "check": closed_form.gru_reset_placement_check(),
    },
}


def main(log):
    frames = TABLES[snakemake.params.table]()
    for name, frame in frames.items():
        frame.to_csv(snakemake.output[name], index=False, float_format=None)
        log(f"{snakemake.params.table}/{name} -> {snakemake.output[name]}")
        log(frame.to_string(index=False))


run_logged(snakemake.log[0], main)
