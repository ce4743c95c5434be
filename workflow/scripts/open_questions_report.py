"""Rule open_questions_report (gatedrnn.questions.report)."""

from gatedrnn.questions.report import write_open_questions_report
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_open_questions_report(
        snakemake.input.tables, snakemake.output[0], log, snakemake.params.toy
    ),
)
