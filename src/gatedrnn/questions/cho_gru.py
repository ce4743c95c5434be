"""G5. The reset-before ("Cho") GRU against PyTorch's reset-after GRU, same data
and protocol (:class:`gatedrnn.core.cells.GRUVariant` with ``placement="before"``)."""

from __future__ import annotations

import pandas as pd

from gatedrnn.questions.common import Log, fmt, read_summaries, signed, write_table
from gatedrnn.tables.study import gru_vs_lstm_table, median_intervals, paired_gaps


def cho_vs_pytorch_table(summaries: list[dict], pytorch_models: dict[str, str]) -> pd.DataFrame:
    """The reset-before ("Cho") GRU against PyTorch's reset-after GRU, same data and protocol.

    ``pytorch_models`` maps each ``cho_gru_<token>`` to the ``gru_<token>`` it is
    compared with. D3's columns plus ``placement`` and ``median_minus_pytorch`` (Cho
    median - PyTorch median: positive = the Cho GRU is worse), then its intervals over
    seeds appended (issue #47): ``seeds``, ``median_low, median_high``
    (:func:`~gatedrnn.tables.study.median_intervals`) and the Cho GRU's loss minus
    its PyTorch GRU's seed by seed (the same seed shares its data order):
    ``paired_minus_pytorch`` (the median over seeds), ``_low``, ``_high``
    (:func:`~gatedrnn.tables.study.paired_gaps`; empty on PyTorch's rows). No timing: a result
    table is the same bytes run to run, and wall times are not (the training jobs'
    own are in ``results/benchmarks/train/``; ``bench/bench_cells.py`` times the two
    cells side by side).
    """
    table = gru_vs_lstm_table(summaries)
    table["placement"] = ["before (Cho)" if c == "cho_gru" else "after (PyTorch)" for c in table["cell"]]
    medians = table.set_index("model")["median"]
    table["median_minus_pytorch"] = [
        medians[m] - medians[pytorch_models[m]] if m in pytorch_models else 0.0 for m in table["model"]
    ]
    position = {model: k for k, model in enumerate(table["model"])}
    partners = [position.get(pytorch_models[m]) if m in pytorch_models else None for m in table["model"]]
    return paired_gaps(median_intervals(table), partners, "paired_minus_pytorch")


def write_cho_vs_pytorch_table(summaries, pytorch_models: dict[str, str], out, log: Log) -> pd.DataFrame:
    """Rule ``cho_vs_pytorch_gru``: :func:`cho_vs_pytorch_table` of the ``summaries`` files, to ``out``."""
    table = cho_vs_pytorch_table(read_summaries(summaries), dict(pytorch_models))
    write_table(table, out, log)
    return table


def cho_gru_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence per Cho GRU: its median loss against nn.GRU's."""
    out = []
    pytorch = table[table["cell"] == "gru"].set_index("width")
    for _, row in table[table["cell"] == "cho_gru"].iterrows():
        out.append(
            f"The reset-before (Cho) GRU {row['model']} ({int(row['params']):,} parameters, "
            "the same as nn.GRU) "
            f"reaches {fmt(row['median'])} against PyTorch's reset-after GRU's "
            f"{fmt(pytorch.loc[row['width'], 'median']) if row['width'] in pytorch.index else 'n/a'} "
            f"({signed(row['median_minus_pytorch'])} nats/char)."
        )
    return out
