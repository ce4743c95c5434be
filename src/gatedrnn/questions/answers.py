"""Beyond the study (section G): the questions it left open, one table each.

Every function takes plain data (summaries as dicts, histories as frames, loaded
models, probe gates) and returns a DataFrame; the rule scripts only read and
write files. Losses are nats/char; ``loss_difference`` is always "the variant
minus its reference", so a positive number means the variant is worse.

Choices fixed here (config/README.md and the report repeat them):

- Reset gate, pinned: the budget-matched GRU's FINAL weights (``model.pt``) are
  evaluated on the training protocol's fixed validation windows twice, as
  trained and with ``r = 1`` (:func:`gatedrnn.core.cells.pinned_reset_logits`); no
  retraining. Reset gate, trained: ``gru_noreset`` (``r`` fixed at 1, no reset
  weights) against ``gru`` at the same width token, best validation loss.
- Split by width: the D4 split (:func:`gatedrnn.tables.study.advantage_split_table`)
  repeated with the LSTM at other reference widths R: LSTM wR - GRU wR
  ("structure"), GRU wR - GRU budgetR ("width"), on medians over seeds.
- Longer training: the same models and seeds trained for more steps (a regime
  that overrides ``steps`` only); with the same seed the first ``train.steps``
  steps of the long run are the default run, so the default model is the long
  run's state at ``train.steps``. Gates on the study's probe set.
- Long memory: :func:`gatedrnn.io.synthetic.copy_task` text; "recall" positions
  are those holding a key whose copy source lies ``distance`` characters back
  inside the same probe line; recall loss and accuracy are measured there.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import torch

from gatedrnn.analysis.gates import extract_gates
from gatedrnn.analysis.stats import coupling_stats, gate_summary, unit_gate_summary
from gatedrnn.core.cells import windows_loss
from gatedrnn.core.conventions import KEEP_GATE, KEEP_GATE_NAME, WIDTH_TOKEN
from gatedrnn.io.files import atomic_write_bytes, sha256_bytes
from gatedrnn.io.synthetic import COPY_KEYS, copy_task, copy_task_loss_bounds
from gatedrnn.tables.study import advantage_split_table, gru_vs_lstm_table

MEDIAN = "median"


def _median_rows(rows: list[dict], group_keys: tuple[str, ...], value_keys: tuple[str, ...]) -> list[dict]:
    """One ``seed = "median"`` row per group: the median over seeds of every value."""
    frame = pd.DataFrame(rows)
    out = []
    for _, group in frame.groupby(list(group_keys), sort=False):
        row = group.iloc[0].to_dict()
        row["seed"] = MEDIAN
        for key in value_keys:
            row[key] = float(group[key].median())
        out.append(row)
    return out


# ------------------------------------------------------------------ the reset gate


def pinned_reset_row(model, summary: dict, windows: torch.Tensor) -> dict:
    """The trained GRU on the validation windows, as trained and with ``r`` pinned to 1."""
    full = windows_loss(model, windows)
    pinned = windows_loss(model, windows, placement="none")
    return {
        "comparison": "reset_pinned_to_1",
        "model": f"{summary['model']} (r = 1)",
        "reference_model": summary["model"],
        "seed": summary["seed"],
        "width": summary["width"],
        "reference_width": summary["width"],
        "params": summary["params"],
        "reference_params": summary["params"],
        "loss": pinned,
        "reference_loss": full,
        "loss_difference": pinned - full,
        "loss_kind": "validation loss of the final weights",
        "training_final_val_loss": summary["final_val_loss"],
    }


def trained_noreset_row(noreset: dict, gru: dict) -> dict:
    """``gru_noreset`` against ``gru`` at the same width token and seed, best validation loss."""
    if noreset["seed"] != gru["seed"] or noreset["width_token"] != gru["width_token"]:
        raise ValueError(
            f"{noreset['model']} s{noreset['seed']} is not paired with {gru['model']} s{gru['seed']}"
        )
    return {
        "comparison": "trained_without_reset",
        "model": noreset["model"],
        "reference_model": gru["model"],
        "seed": noreset["seed"],
        "width": noreset["width"],
        "reference_width": gru["width"],
        "params": noreset["params"],
        "reference_params": gru["params"],
        "loss": noreset["best_val_loss"],
        "reference_loss": gru["best_val_loss"],
        "loss_difference": noreset["best_val_loss"] - gru["best_val_loss"],
        "loss_kind": "best validation loss",
        "training_final_val_loss": noreset["final_val_loss"],
    }


def reset_gate_table(
    pinned_rows: list[dict], noreset_summaries: list[dict], gru_summaries: list[dict]
) -> pd.DataFrame:
    """Both answers to "what does the reset gate do", per seed and the median over seeds.

    ``pinned_rows`` from :func:`pinned_reset_row`; ``noreset_summaries`` are paired
    with the ``gru_summaries`` of the same width token and seed.
    """
    gru_by_key = {(s["width_token"], s["seed"]): s for s in gru_summaries}
    trained = []
    for summary in noreset_summaries:
        key = (summary["width_token"], summary["seed"])
        if key not in gru_by_key:
            raise ValueError(f"no gru_{key[0]} seed {key[1]} to compare {summary['model']} with")
        trained.append(trained_noreset_row(summary, gru_by_key[key]))
    rows = []
    values = ("loss", "reference_loss", "loss_difference", "training_final_val_loss")
    for block in (list(pinned_rows), trained):
        if block:
            rows += block + _median_rows(block, ("comparison", "model"), values)
    return pd.DataFrame(rows)


# ---------------------------------------------------------- the split at other widths


def reference_width_of(summary: dict) -> int:
    """The R of a split-by-width model: ``lstm_wR``, ``gru_wR`` and ``gru_budgetR`` all give R."""
    match = WIDTH_TOKEN.match(summary["width_token"])
    if match is None:
        raise ValueError(
            f"{summary['model']}: width token {summary['width_token']!r} is not w<H> or budget<R>"
        )
    return int(match["literal"] or match["budget"])


def split_by_width_table(summaries: list[dict]) -> pd.DataFrame:
    """D4's structure/width split with the LSTM at each reference width R.

    ``summaries``: every seed of ``lstm_wR``, ``gru_wR`` and ``gru_budgetR`` for
    each R (grouped by :func:`reference_width_of`). Columns ``reference_width,
    component, comparison, loss_difference, share_of_total`` (as D4), then the
    three medians, the budget GRU's width and parameters, and the seeds used.
    """
    by_width: dict[int, list[dict]] = {}
    for summary in summaries:
        by_width.setdefault(reference_width_of(summary), []).append(summary)
    frames = []
    for reference, group in sorted(by_width.items()):
        lstm, gru_w, gru_b = f"lstm_w{reference}", f"gru_w{reference}", f"gru_budget{reference}"
        models = gru_vs_lstm_table(group).set_index("model")
        missing = {lstm, gru_w, gru_b} - set(models.index)
        if missing:
            raise ValueError(f"reference width {reference}: no summaries for {', '.join(sorted(missing))}")
        split = advantage_split_table(models.reset_index(), lstm, gru_w, gru_b)
        split.insert(0, "reference_width", reference)
        split["lstm_median"] = models.loc[lstm, "median"]
        split["gru_same_width_median"] = models.loc[gru_w, "median"]
        split["gru_same_budget_median"] = models.loc[gru_b, "median"]
        split["budget_gru_width"] = int(models.loc[gru_b, "width"])
        split["lstm_params"] = int(models.loc[lstm, "params"])
        split["budget_gru_params"] = int(models.loc[gru_b, "params"])
        split["seeds"] = len({s["seed"] for s in group})
        frames.append(split)
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------- two layers


def two_layers_tables(summaries: list[dict], lstm: str, gru_same_width: str, gru_same_budget: str):
    """GRU against LSTM at one and at two (or more) stacked layers.

    ``summaries``: every seed of the comparison's three models under each layer
    count (the ``layers`` of their ``train_config``). Returns ``(models, split)``:
    ``models`` is D3's table per layer count (columns ``layers`` first, then
    ``gap_to_lstm`` = LSTM median - this median: positive = better than the LSTM);
    ``split`` is D4's split per layer count.
    """
    frame = pd.DataFrame(summaries)
    frame["layers"] = [s["train_config"]["layers"] for s in summaries]
    tables, splits = [], []
    for layers, group in frame.groupby("layers", sort=True):
        table = gru_vs_lstm_table(group.drop(columns="layers").to_dict("records"))
        table.insert(0, "layers", int(layers))
        lstm_median = table.set_index("model").loc[lstm, "median"]
        table["gap_to_lstm"] = lstm_median - table["median"]
        tables.append(table)
        split = advantage_split_table(table, lstm, gru_same_width, gru_same_budget)
        split.insert(0, "layers", int(layers))
        splits.append(split)
    return pd.concat(tables, ignore_index=True), pd.concat(splits, ignore_index=True)


# ---------------------------------------------------------------- longer training


def _keep_gate_stats(cell: str, gates: dict[str, np.ndarray], long_half_life: float) -> dict:
    """The kept fraction's statistics (LSTM f, GRU z), coupling (LSTM) and reset mean (GRU)."""
    if cell not in KEEP_GATE:
        raise ValueError(f"a {cell} has no gate that keeps the state")
    keep = gates[KEEP_GATE[cell]]
    units = unit_gate_summary(keep, long_half_life)
    row = {
        "keep_gate": KEEP_GATE_NAME[cell],
        "keep_gate_mean": gate_summary(keep)["mean"],
        "units": units["units"],
        "unit_mean_min": units["mean_min"],
        "unit_mean_median": units["mean_median"],
        "unit_mean_max": units["mean_max"],
        "half_life_min": units["half_life_min"],
        "half_life_median": units["half_life_median"],
        "half_life_max": units["half_life_max"],
        "units_half_life_ge_long": units[f"units_half_life_ge_{long_half_life:g}"],
        "input_or_reset_mean": float(np.mean(gates["i" if cell == "lstm" else "r"])),
        "coupling_corr": float("nan"),
        "mean_i_plus_f": float("nan"),
    }
    if cell == "lstm":
        coupling = coupling_stats(gates["i"], gates["f"])
        row["coupling_corr"] = coupling["corr_all"]
        row["mean_i_plus_f"] = coupling["mean_i_plus_f"]
    return row


def longer_training_curves(entries) -> pd.DataFrame:
    """Long form: the validation history of every entry of :func:`longer_training_table`
    (columns ``model, cell, seed, regime, regime_steps, step, train_loss, val_loss``)."""
    frames = []
    for summary, history, _ in entries:
        frame = history.copy()
        for position, (key, value) in enumerate(
            [
                ("model", summary["model"]),
                ("cell", summary["cell"]),
                ("seed", summary["seed"]),
                ("regime", summary["regime"]),
                ("regime_steps", int(summary["train_config"]["steps"])),
            ]
        ):
            frame.insert(position, key, value)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def longer_training_table(entries, long_half_life: float = 10.0) -> pd.DataFrame:
    """Where the gates go, and whether validation has turned, when training continues.

    ``entries``: ``(summary, history, gates)`` of every model and seed under every
    regime compared (``gates`` a :class:`gatedrnn.analysis.gates.ProbeGates` on the probe
    set). One row per entry, ordered by model, seed, steps. ``val_loss_at_base``
    is the validation loss at the fewest steps of the model's rows (the default
    protocol's end), read from each run's own history; ``rise_after_best`` =
    final - best validation loss, ``turned`` = the best step lies before the end
    and the final loss is above it.
    """
    rows = []
    for summary, history, probe in entries:
        steps = int(summary["train_config"]["steps"])
        rows.append(
            {
                "model": summary["model"],
                "cell": summary["cell"],
                "seed": summary["seed"],
                "regime": summary["regime"],
                "steps": steps,
                "best_val_loss": summary["best_val_loss"],
                "best_step": summary["best_step"],
                "final_val_loss": summary["final_val_loss"],
                "rise_after_best": summary["final_val_loss"] - summary["best_val_loss"],
                "turned": bool(
                    summary["best_step"] < steps and summary["final_val_loss"] > summary["best_val_loss"]
                ),
                "_history": history,
                **_keep_gate_stats(summary["cell"], probe.gates, long_half_life),
            }
        )
    frame = pd.DataFrame(rows)
    base = frame.groupby(["model", "seed"])["steps"].transform("min")
    at_base = []
    for history, steps in zip(frame["_history"], base, strict=True):
        match = history.loc[history["step"] == steps, "val_loss"]
        at_base.append(float(match.iloc[0]) if len(match) else float("nan"))
    frame.insert(5, "base_steps", base.astype(int))
    frame.insert(6, "val_loss_at_base", at_base)
    frame = frame.drop(columns="_history")
    return frame.sort_values(["model", "seed", "steps"], kind="stable", ignore_index=True)


# ------------------------------------------------------------ reset before the matrix


def cho_vs_pytorch_table(summaries: list[dict], pytorch_models: dict[str, str]) -> pd.DataFrame:
    """The reset-before ("Cho") GRU against PyTorch's reset-after GRU, same data and protocol.

    ``pytorch_models`` maps each ``cho_gru_<token>`` to the ``gru_<token>`` it is
    compared with. D3's columns plus ``placement``, ``median_minus_pytorch`` (Cho
    median - PyTorch median: positive = the Cho GRU is worse) and
    ``seconds_per_step`` (median over seeds of training wall time / steps,
    validation included; each run's own device and threads).
    """
    table = gru_vs_lstm_table(summaries)
    frame = pd.DataFrame(summaries)
    frame["seconds_per_step"] = frame["wall_seconds"] / [s["train_config"]["steps"] for s in summaries]
    per_step = frame.groupby("model")["seconds_per_step"].median()
    table["placement"] = ["before (Cho)" if c == "cho_gru" else "after (PyTorch)" for c in table["cell"]]
    medians = table.set_index("model")["median"]
    table["median_minus_pytorch"] = [
        medians[m] - medians[pytorch_models[m]] if m in pytorch_models else 0.0 for m in table["model"]
    ]
    table["seconds_per_step"] = table["model"].map(per_step)
    reference_speed = {m: per_step[p] for m, p in pytorch_models.items()}
    table["time_over_pytorch"] = [
        per_step[m] / reference_speed[m] if m in reference_speed else 1.0 for m in table["model"]
    ]
    return table


# -------------------------------------------------------------------- long memory


def write_copy_task_corpus(
    text_path, provenance_path, chars: int, distance: int, seed: int, keys: int, fillers: int
) -> dict:
    """Write :func:`gatedrnn.io.synthetic.copy_task` text and a provenance record shaped
    like :func:`gatedrnn.io.corpus.build_corpus`'s (``corpus_sha256``, ``vocab_size``, ...)."""
    text = copy_task(chars, distance, seed, keys, fillers)
    encoded = text.encode("utf-8")
    provenance = {
        "source": "copy_task",
        "chars_requested": chars,
        "distance": distance,
        "keys": keys,
        "fillers": fillers,
        "seed": seed,
        "loss_bounds": copy_task_loss_bounds(distance, keys, fillers),
        "members": [],
        "corpus_sha256": sha256_bytes(encoded),
        "bytes": len(encoded),
        "characters": len(text),
        "vocabulary": "".join(sorted(set(text))),
        "vocab_size": len(set(text)),
    }
    atomic_write_bytes(text_path, encoded)
    atomic_write_bytes(provenance_path, (json.dumps(provenance, indent=2, sort_keys=True) + "\n").encode())
    return provenance


def recall_mask(tokens: torch.Tensor, key_ids, distance: int) -> torch.Tensor:
    """(B, T) bool: positions holding a key whose copy source, ``distance`` back, is a
    key inside the same line (:func:`gatedrnn.io.synthetic.recall_positions` per line)."""
    is_key = torch.isin(tokens, torch.as_tensor(list(key_ids), dtype=tokens.dtype))
    mask = torch.zeros_like(is_key)
    mask[:, distance:] = is_key[:, distance:] & is_key[:, :-distance]
    return mask


@torch.no_grad()
def copy_recall(model, tokens: torch.Tensor, key_ids, distance: int) -> dict:
    """Loss and accuracy of next-character prediction at the recall positions of
    ``tokens`` (B, T) read from a zero state, and the loss everywhere else."""
    model.eval()
    logits, _ = model(tokens[:, :-1])
    targets = tokens[:, 1:]
    losses = torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none"
    ).reshape(targets.shape)
    mask = recall_mask(tokens, key_ids, distance)[:, 1:]
    if not mask.any():
        raise ValueError(
            f"no recall position in probe lines of {tokens.shape[1]} characters at distance {distance}"
        )
    correct = logits.argmax(dim=-1) == targets
    return {
        "recall_positions": int(mask.sum()),
        "recall_loss": float(losses[mask].mean()),
        "recall_accuracy": float(correct[mask].float().mean()),
        "other_loss": float(losses[~mask].mean()),
    }


def long_memory_table(
    models,
    tokens: torch.Tensor,
    vocabulary: str,
    distance: int,
    keys: int,
    fillers: int,
    counterparts: dict[str, str | None] | None = None,
    counterpart_summaries: list[dict] = (),
) -> pd.DataFrame:
    """Do the gates learn to stay open when the task needs a memory of ``distance``?

    ``models``: ``(model, summary)`` trained on :func:`gatedrnn.io.synthetic.copy_task`
    text; ``tokens``: probe lines of its validation split. Per model and seed:
    best validation loss beside the task's bounds (``loss_perfect``,
    ``loss_no_key_memory``), recall loss and accuracy (chance ``ln keys`` and
    ``1 / keys``), and the keep gate (LSTM f, GRU z) with per-unit half-lives and
    the number of units whose half-life reaches ``distance``.
    ``counterparts`` maps a long-memory regime to the default-corpus regime with
    the same training overrides (e.g. ``long_memory_forget_bias_3`` ->
    ``forget_bias_3``); the same model's best validation loss there (same seed)
    goes in ``default_corpus_best_val_loss``.
    """
    counterparts = counterparts or {}
    key_ids = [vocabulary.index(c) for c in COPY_KEYS[:keys] if c in vocabulary]
    bounds = copy_task_loss_bounds(distance, keys, fillers)
    others = {(s["regime"], s["model"], s["seed"]): s for s in counterpart_summaries}
    rows = []
    for model, summary in models:
        cfg = summary["train_config"]
        gates = extract_gates(model, tokens)
        other_regime = counterparts.get(summary["regime"])
        other = others.get((other_regime, summary["model"], summary["seed"]))
        rows.append(
            {
                "regime": summary["regime"],
                "model": summary["model"],
                "cell": summary["cell"],
                "seed": summary["seed"],
                "forget_bias": 0.0 if cfg.get("forget_bias") is None else float(cfg["forget_bias"]),
                "distance": distance,
                "best_val_loss": summary["best_val_loss"],
                "best_step": summary["best_step"],
                "loss_perfect": bounds["perfect"],
                "loss_no_key_memory": bounds["no_key_memory"],
                **copy_recall(model, tokens, key_ids, distance),
                "recall_chance_loss": bounds["recall_chance"],
                "recall_chance_accuracy": 1.0 / keys,
                **{
                    k: v
                    for k, v in _keep_gate_stats(summary["cell"], gates, float(distance)).items()
                    if k not in ("coupling_corr", "mean_i_plus_f")
                },
                "default_corpus_regime": other_regime,
                "default_corpus_best_val_loss": other["best_val_loss"] if other else math.nan,
            }
        )
    frame = pd.DataFrame(rows).rename(columns={"units_half_life_ge_long": "units_half_life_ge_distance"})
    return frame.sort_values(["model", "forget_bias", "seed"], kind="stable", ignore_index=True)


# --------------------------------------------------------------------- the report


def _f(value, digits: int = 4) -> str:
    return (
        "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"
    )


def _signed(value, digits: int = 4) -> str:
    return (
        "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:+.{digits}f}"
    )


def _pct(value) -> str:
    return (
        "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.0f} %"
    )


def _seeds(frame: pd.DataFrame) -> int:
    return int(frame.loc[frame["seed"].astype(str) != MEDIAN, "seed"].nunique())


def _reset_sentences(table: pd.DataFrame) -> list[str]:
    out = []
    medians = table[table["seed"].astype(str) == MEDIAN]
    for _, row in medians.iterrows():
        n = _seeds(table[table["comparison"] == row["comparison"]])
        if row["comparison"] == "reset_pinned_to_1":
            out.append(
                f"Pinning the reset gate of the trained {row['reference_model']} to 1 (no retraining) "
                "moves its "
                f"validation loss from {_f(row['reference_loss'])} to {_f(row['loss'])} nats/char "
                f"({_signed(row['loss_difference'])}, median of {n} seeds)."
            )
        else:
            out.append(
                f"Trained without a reset, {row['model']} (width {int(row['width'])}, {int(row['params']):,} "
                f"parameters) reaches {_f(row['loss'])} against {_f(row['reference_loss'])} for "
                f"{row['reference_model']} (width {int(row['reference_width'])}, "
                f"{int(row['reference_params']):,}): "
                f"{_signed(row['loss_difference'])} nats/char (median of {n} seeds)."
            )
    return out


def _split_sentence(table: pd.DataFrame) -> list[str]:
    parts = []
    for reference, group in table.groupby("reference_width", sort=True):
        rows = group.set_index("component")
        parts.append(
            f"R = {reference}: gap {_signed(rows.loc['total', 'loss_difference'])}, structure "
            f"{_pct(rows.loc['structure', 'share_of_total'])}, "
            f"width {_pct(rows.loc['width', 'share_of_total'])}"
        )
    seeds = int(table["seeds"].min())
    return [
        "The LSTM - budget-GRU gap split into structure (same width) and width (same budget), "
        f"medians of {seeds} seed(s): " + "; ".join(parts) + "."
    ]


def _two_layer_sentence(table: pd.DataFrame) -> list[str]:
    parts = []
    for layers, group in table.groupby("layers", sort=True):
        rows = group.set_index("cell").reset_index()
        lstm = rows[rows["cell"] == "lstm"].iloc[0]
        budget = rows[(rows["cell"] == "gru") & rows["model"].str.contains("budget")].iloc[0]
        same = rows[(rows["cell"] == "gru") & ~rows["model"].str.contains("budget")].iloc[0]
        parts.append(
            f"{layers} layer(s): LSTM {_f(lstm['median'])}, GRU same width {_f(same['median'])}, "
            f"GRU same budget {_f(budget['median'])} (width {int(budget['width'])}; "
            f"GRU advantage {_signed(budget['gap_to_lstm'])})"
        )
    return ["GRU against LSTM with stacked layers (median best validation loss): " + "; ".join(parts) + "."]


def _longer_sentences(table: pd.DataFrame) -> list[str]:
    out = []
    for model, group in table.groupby("model", sort=False):
        med = group.groupby("steps").median(numeric_only=True).sort_index()
        short, long = med.iloc[0], med.iloc[-1]
        turned = group[group["steps"] == med.index[-1]]["turned"]
        gate = group["keep_gate"].iloc[0]
        sentence = (
            f"{model} trained {int(med.index[-1])} steps instead of {int(med.index[0])}: mean {gate} gate "
            f"{_f(short['keep_gate_mean'], 3)} -> {_f(long['keep_gate_mean'], 3)}, median unit half-life "
            f"{_f(short['half_life_median'], 2)} -> {_f(long['half_life_median'], 2)} characters (max "
            f"{_f(short['half_life_max'], 2)} -> {_f(long['half_life_max'], 2)})"
        )
        if not math.isnan(long["coupling_corr"]):
            sentence += (
                f", corr(i, 1 - f) {_signed(short['coupling_corr'], 3)} -> "
                f"{_signed(long['coupling_corr'], 3)}"
            )
        sentence += (
            f"; best validation loss {_f(short['best_val_loss'])} -> {_f(long['best_val_loss'])} at step "
            f"{int(long['best_step'])}, and it has turned upward in {int(turned.sum())} of "
            f"{len(turned)} seed(s) "
            f"(final - best {_signed(long['rise_after_best'])})."
        )
        out.append(sentence)
    return out


def _cho_sentences(table: pd.DataFrame) -> list[str]:
    out = []
    pytorch = table[table["cell"] == "gru"].set_index("width")
    for _, row in table[table["cell"] == "cho_gru"].iterrows():
        out.append(
            f"The reset-before (Cho) GRU {row['model']} ({int(row['params']):,} parameters, "
            "the same as nn.GRU) "
            f"reaches {_f(row['median'])} against PyTorch's reset-after GRU's "
            f"{_f(pytorch.loc[row['width'], 'median']) if row['width'] in pytorch.index else 'n/a'} "
            f"({_signed(row['median_minus_pytorch'])} nats/char), training at "
            f"{_f(row['time_over_pytorch'], 2)} times nn.GRU's time per step."
        )
    return out


def _long_memory_sentences(table: pd.DataFrame) -> list[str]:
    out = []
    for model, group in table.groupby("model", sort=False):
        parts = []
        for bias, rows in group.groupby("forget_bias", sort=True):
            med = rows.median(numeric_only=True)
            corpus = (
                f"; on the default corpus {_f(med['default_corpus_best_val_loss'])}"
                if not math.isnan(med["default_corpus_best_val_loss"])
                else ""
            )
            parts.append(
                f"forget bias {bias:g}: recall accuracy {_f(med['recall_accuracy'], 3)} (chance "
                f"{_f(med['recall_chance_accuracy'], 3)}), recall loss {_f(med['recall_loss'], 3)} (chance "
                f"{_f(med['recall_chance_loss'], 3)}), mean {rows['keep_gate'].iloc[0]} gate "
                f"{_f(med['keep_gate_mean'], 3)}, median unit half-life {_f(med['half_life_median'], 2)} "
                f"(max {_f(med['half_life_max'], 2)}; {_f(med['units_half_life_ge_distance'], 0)} of "
                f"{int(med['units'])} units reach the distance), "
                f"best validation loss {_f(med['best_val_loss'])}"
                f"{corpus}"
            )
        first = group.iloc[0]
        out.append(
            f"On the copy task (a key repeated {int(first['distance'])} characters later; best possible loss "
            f"{_f(first['loss_perfect'])}, {_f(first['loss_no_key_memory'])} without the key's memory), "
            f"{model}: " + "; ".join(parts) + "."
        )
    return out


REPORT_SECTIONS = {
    "open_reset_gate": ("What the reset gate does", _reset_sentences),
    "split_by_width": ("The structure/width split at other widths", _split_sentence),
    "two_layers": ("Two stacked layers", _two_layer_sentence),
    "longer_training": ("Training longer", _longer_sentences),
    "cho_vs_pytorch_gru": ("The reset-before (Cho) GRU", _cho_sentences),
    "long_memory": ("A task that needs long memory", _long_memory_sentences),
}


def open_questions_report(tables: dict[str, pd.DataFrame]) -> str:
    """Markdown: each answer in one sentence (or one per model) with its numbers.

    ``tables`` maps a table's file stem (``open_reset_gate``, ``split_by_width``,
    ``two_layers``, ``longer_training``, ``cho_vs_pytorch_gru``, ``long_memory``)
    to its frame; missing tables (switched-off questions) are left out.
    """
    lines = [
        "## Beyond the study",
        "",
        "Losses are validation cross-entropy in nats/char (medians over seeds); "
        "tables under `results/tables/`.",
        "",
    ]
    for stem, (title, sentences) in REPORT_SECTIONS.items():
        if stem in tables:
            lines.append(f"- **{title}** (`{stem}.csv`). " + " ".join(sentences(tables[stem])))
    return "\n".join(lines) + "\n"
