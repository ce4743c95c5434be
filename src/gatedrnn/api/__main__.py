"""``python -m gatedrnn.api RUN [TEXT]``: a finished run's model (no TEXT), or each gate's
mean over the units at every character of TEXT. A run that is not there, or a character
outside the vocabulary, is one line ``ERROR: ...`` and exit status 1, never a traceback."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from gatedrnn.api import RunNotFound, gates, load


def describe(model) -> str:
    summary = model.summary
    return "\n".join(
        [
            f"run            {model.name}",
            f"cell, width    {model.cell}, {model.width} units (seed {model.seed})",
            f"weights        {model.weights} (step {model.step})",
            f"best val loss  {summary.get('best_val_loss')} at step {summary.get('best_step')}",
            f"vocabulary     {model.config.get('vocabulary', 'corpus')} ({len(model.vocabulary)} characters)",
        ]
    )


def by_character(found) -> pd.DataFrame:
    """One row per character: each gate's and state's mean over the units."""
    frame = pd.DataFrame({"char": [repr(c) for c in found.chars]})
    for name in (*found.names, *found.states):
        frame[f"{name} ({found.labels[name]})"] = found[name].mean(axis=-1)
    return frame


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.api", description=__doc__)
    parser.add_argument("run", help='a run name ("default/lstm_w325_s0") or a model directory or checkpoint')
    parser.add_argument("text", nargs="?", help="text to read: each gate's mean over units, per character")
    parser.add_argument("--results", help="the results folder (or the working directory holding it)")
    parser.add_argument("--layer", type=int, default=0, help="the layer of a stacked model (default 0)")
    args = parser.parse_args(argv)
    try:
        model = load(args.run, args.results)
        if args.text is None:
            print(describe(model))
        else:
            table = by_character(gates(model, args.text, args.layer))
            print(table.to_string(index=False, float_format="%.4f"))
    except (RunNotFound, ValueError) as err:
        print(f"ERROR: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
