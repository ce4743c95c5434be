"""Figures of the open questions (section G), drawn from their CSV tables alone
(Agg backend, stable PNG bytes: :func:`gatedrnn.report.style.save_figure`), with
the study's published values where the figure draws the same quantity
(:class:`gatedrnn.report.published_marks.Published`); each returns the claim ids it marked."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from gatedrnn.report.published_marks import Published, ids, mark_level, mark_points, seeds_note, study_label
from gatedrnn.report.style import SMALL, model_label, plt, save_figure

# G2's parts, side by side at each width: (component, colour, legend label)
SPLIT_PARTS = (
    ("structure", "C0", "structure: LSTM wR - GRU wR"),
    ("width", "C1", "width: GRU wR - GRU (budget of R)"),
    ("total", "C7", "total: LSTM wR - GRU (budget of R)"),
)
SPLIT_STEP = 0.27  # the parts' offsets from their width's tick


def plot_split_by_width(
    table: pd.DataFrame, path, published: Published | None = None, reference_width: int | None = None
) -> list[str]:
    """The LSTM - budget-GRU gap at each reference width R, in its two parts (structure,
    width) and in total, side by side: each a bar at its median over seeds, taken seed by
    seed, with its 95 % paired bootstrap interval (the table's ``paired_median, low,
    high``; a table without them: the difference of medians, no interval). At the
    configured reference width (the grid's: the ledger judges D4 there, as the study's
    LSTM w325), the study's two parts (D4) as crosses on their bars; none where the
    table has no such width. No shares: with parts of opposite signs they pass 100 %."""
    published = published or Published()
    fig, ax = plt.subplots(figsize=(8.0, 5.6))
    widths = sorted(table["reference_width"].unique())
    x = np.arange(len(widths))
    seeds = int(table["seeds"].min()) if "seeds" in table.columns else None
    paired = {"paired_median", "low", "high"} <= set(table.columns)
    column = "paired_median" if paired else "loss_difference"
    paired = paired and seeds != 1  # one seed: no spread, no interval
    rows = table.set_index(["component", "reference_width"])
    for k, (component, colour, label) in enumerate(SPLIT_PARTS):
        at = x + (k - 1) * SPLIT_STEP
        heights = rows.loc[component].loc[widths, column].to_numpy(dtype=float)
        ax.bar(at, heights, width=SPLIT_STEP * 0.9, color=colour, label=label)
        if paired:
            low = rows.loc[component].loc[widths, "low"].to_numpy(dtype=float)
            high = rows.loc[component].loc[widths, "high"].to_numpy(dtype=float)
            ax.errorbar(at, heights, yerr=[heights - low, high - heights], fmt="none", ecolor="black",
                        elinewidth=1.2, capsize=4)  # fmt: skip
    # D4's parts, read seed by seed from gru_vs_lstm.csv (published.yaml)
    study = [published.get(f"D4.gru_advantage_split.{c}") for c in ("structure", "width")]
    marked = []
    if reference_width in widths and all(v is not None for v in study):
        slot = widths.index(reference_width)
        for k, value in enumerate(study):
            mark_points(ax, [x[slot] + (k - 1) * SPLIT_STEP], [value.number],
                        study_label(study, "structure, width") if k == 0 else None,
                        colour=SPLIT_PARTS[k][1])  # fmt: skip
        marked = ids(study)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(x, [str(w) for w in widths])
    ax.set_xlabel("reference LSTM width R (units)")
    over = f"{seeds} seeds" if seeds else "seeds"
    what = {
        "paired_median": f"median over {over} of the seed-by-seed difference",
        "loss_difference": f"difference of medians over {over}",
    }[column]
    ax.set_ylabel(f"loss difference (nats/char)\n{what if seeds != 1 else 'one seed'}")
    bars = "bars: 95 % paired bootstrap interval over seeds" if paired else "no interval"
    bars = "one seed: " + bars if seeds == 1 else bars if paired else "no per-seed rows: " + bars
    ax.set_title(f"G2: the GRU's advantage over the LSTM, structure + width\n({bars})")
    ax.grid(True, axis="y", alpha=0.3)
    # below the axes: the study's crosses sit at the top of the panel
    ax.legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
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
