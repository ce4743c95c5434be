"""Rule open_questions_report (gatedrnn.questions.answers.open_questions_report)."""

from pathlib import Path

import pandas as pd

from gatedrnn.questions.answers import open_questions_report
from gatedrnn.scripting import run_logged


def main(log):
    tables = {Path(path).stem: pd.read_csv(path) for path in snakemake.input.tables}
    text = open_questions_report(tables)
    Path(snakemake.output[0]).write_text(text)
    log(text)


run_logged(snakemake.log[0], main)
