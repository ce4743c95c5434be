"""Rule open_questions_report (gatedrnn.open_questions.open_questions_report)."""

from pathlib import Path

import pandas as pd

from gatedrnn.open_questions import open_questions_report
from gatedrnn.scripting import run_logged


def main(log):
    tables = {Path(path).stem: pd.read_csv(path) for path in snakemake.input.tables}
    text = open_questions_report(tables)
    Path(snakemake.output[0]).write_text(text)
    log(text)


run_logged(snakemake.log[0], main)
