"""Figures of the open questions (section G), drawn from their CSV tables alone
(Agg backend, stable PNG bytes: :func:`gatedrnn.report.style.save_figure`), with
the study's published values where the figure draws the same quantity
(:class:`gatedrnn.report.published_marks.Published`); each returns the claim ids it marked."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from gatedrnn.report.published_marks import STUDY, Published, ids, mark_level, seeds_note, study_label
from gatedrnn.report.style import SMALL, model_label, plt, save_figure


def plot_split_by_width(
    table: pd.DataFrame, path, published: Published | None = None, reference_width: int | None = None
) -> list[str]:
    """The LSTM - budget-GRU gap at each reference width, stacked: structure + width,
    each bar labelled with its share of the gap. Beside the configured reference width
    (the grid's: the ledger judges D4 there, as the study's LSTM w325), the study's two
    parts (D4) as a hatched bar; none where the table has no such width."""
    published = published or Published()
    fig, ax = plt.subplots(figsize=(8.0, 4.8))
    widths = sorted(table["reference_width"].unique())
    parts = table.pivot(index="reference_width", columns="component", values="loss_difference").loc[widths]
    shares = table.pivot(index="reference_width", columns="component", values="share_of_total").loc[widths]
    # one slot per bar: (tick label, structure, width, their shares, study?)
    slots = [
        (
            str(w),
            parts.loc[w, "structure"],
            parts.loc[w, "width"],
            shares.loc[w, ["structure", "width"]],
            False,
        )
        for w in widths
    ]
    # D4's parts, read seed by seed from gru_vs_lstm.csv (published.yaml)
    study = [published.get(f"D4.gru_advantage_split.{c}") for c in ("structure", "width")]
    marked = []
    if reference_width in widths and all(v is not None for v in study):
        total = study[0].number + study[1].number
        slot = ("study\n(D4)", study[0].number, study[1].number,
                (study[0].number / total, study[1].number / total), True)  # fmt: skip
        slots.insert(widths.index(reference_width) + 1, slot)
        marked = ids(study)
    x = np.arange(len(slots))
    labelled = set()
    for k, (_, structure, width, (share_structure, share_width), is_study) in enumerate(slots):
        if is_study:
            names = (study_label(study, "structure"), study_label(study, "width"))
            style = {"hatch": "//", "edgecolor": "black", "linewidth": 0.8, "alpha": 0.55}
        else:
            names, style = ("structure: LSTM wR - GRU wR", "width: GRU wR - GRU (budget of R)"), {}
        gid = STUDY if is_study else None
        ax.bar(
            x[k], structure, color="C0", label=None if names[0] in labelled else names[0], gid=gid, **style
        )
        bottom = structure if width * structure > 0 else 0.0
        label = None if names[1] in labelled else names[1]
        ax.bar(x[k], width, bottom=bottom, color="C1", label=label, gid=gid, **style)
        labelled |= set(names)
        ax.annotate(
            f"{100 * share_structure:.0f} % / {100 * share_width:.0f} %",
            (x[k], max(structure + width, structure, 0.0)),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            fontsize=SMALL,
        )
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(x, [label for label, *_ in slots])
    ax.set_xlabel("reference LSTM width R (units)")
    ax.set_ylabel("loss difference (nats/char, medians over seeds)")
    ax.set_title(
        "G2: the GRU's advantage over the LSTM, structure + width\n(labels: structure % / width % of the gap)"
    )
    ax.grid(True, axis="y", alpha=0.3)
    ax.margins(y=0.12)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)
    return marked


def plot_longer_training(
    curves: pd.DataFrame, table: pd.DataFrame, path, published: Published | None = None
) -> list[str]:
    """Left: validation loss of the longer runs (one line per seed; the dotted line is
    the default protocol's end). Middle: the mean keep gate (LSTM f, GRU z); right: the
    median unit half-life; each at the default end and the longer end, medians over
    seeds. The study's value of each (D3's best validation loss; C2 / D1; D5) dashed in
    the model's colour."""
    published = published or Published()
    fig, (left, middle, right) = plt.subplots(
        1, 3, figsize=(11.0, 4.8), gridspec_kw={"width_ratios": [1.4, 1, 1]}
    )
    # the curves' order (the grid's: the LSTM first, blue, as in the other figures)
    models = list(dict.fromkeys([*curves["model"], *table["model"]]))
    models = [m for m in models if m in set(table["model"])]
    colours = {model: f"C{k}" for k, model in enumerate(models)}
    longest = curves["regime_steps"].max()
    for model, rows in curves[curves["regime_steps"] == longest].groupby("model", sort=False):
        for _, seed_rows in rows.groupby("seed"):
            seed_rows = seed_rows[seed_rows["step"] > 0]
            left.plot(seed_rows["step"], seed_rows["val_loss"], color=colours.get(model, "grey"), alpha=0.8)
    for base in table["base_steps"].unique():
        left.axvline(base, color="grey", linestyle=":", linewidth=1)
    study = []
    for model in models:
        value = published.one("gru_vs_lstm.csv", "seed_*", agg="median", model=model)
        if value is not None:
            mark_level(left, value.number, None, colour=colours[model])
            study.append(value)
    left.set_xlabel("training step (steps)")
    left.set_ylabel("validation loss (nats/char)")
    left.set_title("Validation loss, one line per seed")
    # from a quarter of the default protocol on: the first evaluations would flatten the rest
    shown = curves[(curves["regime_steps"] == longest) & (curves["step"] >= table["base_steps"].min() / 4)]
    if not shown.empty:
        low, high = left.get_ylim()
        left.set_ylim(low, min(high, shown["val_loss"].max() + 0.05 * (high - low)))

    medians = table.groupby(["model", "steps"], sort=False).median(numeric_only=True).reset_index()
    gates = []
    for model in models:
        rows = medians[medians["model"] == model]
        first = table[table["model"] == model].iloc[0]
        gate, cell = first["keep_gate"], first.get("cell")
        middle.plot(rows["steps"], rows["keep_gate_mean"], marker="o", color=colours[model])
        right.plot(rows["steps"], rows["half_life_median"], marker="s", color=colours[model])
        gates.append(f"{model_label(model).split(' ')[0]} {gate}")
        for ax, value in (
            (middle, published.one(f"{cell}_gates.csv" if cell else None, "mean", model=model, gate=gate)),
            (right, published.one("unit_half_lives.csv", "half_life_median", model=model)),
        ):
            if value is not None:
                mark_level(ax, value.number, None, colour=colours[model])
                study.append(value)
    middle.set_ylabel("mean keep gate (fraction kept)")
    middle.set_title(f"Mean keep gate ({', '.join(gates)})")
    right.set_ylabel("median unit half-life (characters)")
    right.set_title("Median unit half-life")
    for ax in (middle, right):
        ax.set_xlabel("training steps (steps)")
        ax.set_xticks(sorted(table["steps"].unique()))
        ax.margins(x=0.15)
    for ax in (left, middle, right):
        ax.grid(True, alpha=0.3)

    handles = [Line2D([], [], color=colours[m], label=model_label(m)) for m in models]
    handles.append(Line2D([], [], color="grey", linestyle=":", label="default protocol's end"))
    if study:
        note = seeds_note(published, "gru_vs_lstm.csv", model=study[0].where.get("model", ""))
        what = f"dashed, in the model's colour (loss: {note})"
        handles.append(Line2D([], [], color="black", linestyle="--", label=study_label(study, what)))
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False)
    fig.suptitle(f"G4: longer training, {int(longest)} steps (medians over seeds)")
    fig.tight_layout(rect=(0, 0.11, 1, 1))
    save_figure(fig, path)
    return ids(study)
