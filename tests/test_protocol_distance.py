"""The protocol distance (gatedrnn.claims.distance) and its Pareto front
(gatedrnn.claims.front): each quantity scored once, each term against the formula
written out here, the bootstrap bit-identical, the front against a brute-force
reading, and the committed reference's loss block scored while its gate block is
not (its regime tables predate the gate quantiles)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gatedrnn.claims import load_claims
from gatedrnn.claims.distance import (
    FLOOR_SD,
    SUMMARIES,
    Summary,
    Target,
    block_distances,
    natural,
    seed_noise_limit,
    targets,
    terms,
)
from gatedrnn.claims.front import distance_table, on_front, regimes_to_confirm, with_confirmation
from gatedrnn.claims.scoreboard import regime_frame
from gatedrnn.plan import Plan
from gatedrnn.reference import load_config
from gatedrnn.tables.regime_sweep import AVERAGED, COLUMNS

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "reference" / "tables"
CLAIMS = load_claims(REPO / "workflow" / "resources" / "published.yaml")


def test_each_quantity_is_scored_once():
    # two summaries on the same column of the same cell's rows would count one number twice
    places = [(s.cell, s.column) for s in SUMMARIES]
    assert len(places) == len(set(places)), [p for p in places if places.count(p) > 1]
    assert len({s.name for s in SUMMARIES}) == len(SUMMARIES)
    assert len({(s.claim, s.minus) for s in SUMMARIES}) == len(SUMMARIES)
    # and every summary reads a column the regime tables are written with
    assert {s.column for s in SUMMARIES} <= set(COLUMNS)
    by_id = {c.id: c for c in CLAIMS}
    for s in SUMMARIES:
        view = by_id[s.claim].regime_view
        if view is not None and s.minus is None:  # the claim's own regime view reads the same column
            assert view.selector.column == s.column, s.name
    # the natural scale: logit for gate values, log for half-lives, nats for losses
    assert {s.scale for s in SUMMARIES if s.column.endswith(("p5", "p50", "p95"))} == {"logit"}
    assert {s.scale for s in SUMMARIES if "half_life" in s.column} == {"log"}
    assert {s.scale for s in SUMMARIES if s.block == "loss"} == {"nats"}


def one_target(scale="nats", run_variance=4e-6, study_variance=9e-6, study_seeds=3):
    summary = Summary("x", "loss", "lstm", "best_val_loss", scale, "none")
    return Target(summary, 1.5, study_variance, study_seeds, run_variance, 3)


def test_a_term_is_the_squared_difference_over_both_seed_variances():
    regimes = pd.DataFrame(
        {"regime": ["a", "b"], "cell": "lstm", "seeds": [1, 3], "best_val_loss": [1.51, 1.49]}
    )
    found = [one_target()]
    table = terms(regimes, found).set_index("regime")
    # written out: v_run / n_regime + v_study / n_study
    assert table.loc["a", "z2"] == pytest.approx(0.01**2 / (4e-6 / 1 + 9e-6 / 3), rel=1e-12)
    assert table.loc["b", "z2"] == pytest.approx(0.01**2 / (4e-6 / 3 + 9e-6 / 3), rel=1e-12)
    assert not table["floored"].any()
    # no spread on either side: the stated floor
    floored = terms(regimes, [one_target(run_variance=0.0, study_variance=0.0)]).set_index("regime")
    assert floored["floored"].all()
    assert floored.loc["a", "z2"] == pytest.approx(0.01**2 / FLOOR_SD["nats"] ** 2, rel=1e-12)


def test_natural_scales():
    assert natural(0.5, "logit") == 0.0
    assert natural(0.9, "logit") == pytest.approx(math.log(9))
    assert natural(math.e, "log") == pytest.approx(1.0)


def reference_regimes():
    regimes = regime_frame(
        pd.read_csv(REFERENCE / "regime_sensitivity.csv"), pd.read_csv(REFERENCE / "corpus_size.csv")
    )
    return with_confirmation(regimes, pd.read_csv(REFERENCE / "protocol_confirmation_regimes.csv"))


def reference_inputs():
    names = Plan.from_config(load_config([str(REPO / "config/config.yaml")])).claim_models
    tables = {
        f"results/tables/{name}": pd.read_csv(REFERENCE / name)
        for name in ("gru_vs_lstm.csv", "lstm_gates.csv", "gru_gates.csv", "lstm_forget_units.csv")
    }
    return tables, names


def test_the_study_side_reads_the_published_seeds_and_the_grid_s():
    tables, names = reference_inputs()
    found = {t.summary.name: t for t in targets(CLAIMS, tables, names)}
    by_id = {c.id: c for c in CLAIMS}
    lstm = np.array(by_id["D3.gru_vs_lstm.lstm.median"].published)
    assert found["lstm_loss"].study == float(np.median(lstm))  # the study's seeds: their median
    assert found["lstm_loss"].study_variance == pytest.approx(np.var(lstm, ddof=1), rel=1e-12)
    grid = (
        pd.read_csv(REFERENCE / "gru_vs_lstm.csv")
        .set_index("model")
        .loc["lstm_w325"]
        .filter(regex=r"^seed_\d+$")  # every seed the grid trained
    )
    assert found["lstm_loss"].run_variance == pytest.approx(np.var(grid.to_numpy(float), ddof=1), rel=1e-12)
    gru = np.array(by_id["D3.gru_vs_lstm.gru_budget.median"].published)
    assert found["gru_minus_lstm"].study_variance == pytest.approx(np.var(gru - lstm, ddof=1), rel=1e-12)
    gates = pd.read_csv(REFERENCE / "lstm_gates.csv").query("gate == 'forget'")["p5"].to_numpy()
    assert found["lstm_forget_p5"].run_variance == pytest.approx(np.var(np.log(gates / (1 - gates)), ddof=1))
    assert found["lstm_forget_p5"].study_variance == 0.0


def test_the_committed_reference_scores_its_loss_block_and_its_gates_where_its_tables_hold_them():
    """A regime table with every gate summary's column (the ten-seed rebuild's) is scored
    on both blocks; one without (the three-seed reference's) on the loss, saying why not
    on the gates."""
    tables, names = reference_inputs()
    regimes = reference_regimes()
    table = distance_table(regimes, targets(CLAIMS, tables, names), confirm_seeds=3)
    assert table["loss"].notna().all() and (table["loss_terms"] == 3).all()
    assert (table["loss_high"] > table["loss_low"]).all()
    if {s.column for s in SUMMARIES if s.block == "gates"} <= set(regimes.columns):
        assert table["gates"].notna().all() and set(table["front_on"]) == {"loss and gates"}
        assert list(table["on_front"]) == list(on_front(table, ("loss", "gates")))
    else:
        assert table["gates"].isna().all()
        assert table["gates_unscored"].str.contains("lack").all()
        assert set(table["front_on"]) == {"loss"} and not table["best"].any()
        # on the loss alone, the front is the regime closest on it
        assert list(table.loc[table["on_front"], "regime"]) == [table.loc[table["loss"].idxmin(), "regime"]]
        assert regimes_to_confirm(table)[0] == table.loc[table["loss"].idxmin(), "regime"]
    # bit-identical, and a regime's interval does not depend on what is scored beside it
    again = distance_table(regimes, targets(CLAIMS, tables, names), confirm_seeds=3)
    pd.testing.assert_frame_equal(table, again)
    first = regimes["regime"].iloc[0]
    alone = block_distances(regimes[regimes["regime"] == first], targets(CLAIMS, tables, names))
    assert alone.loc[0, "loss_low"] == table.loc[table["regime"] == first, "loss_low"].item()


def test_the_front_is_the_non_dominated_set():
    rng = np.random.default_rng(3)
    table = pd.DataFrame(rng.uniform(0, 10, (30, 2)), columns=["loss", "gates"])
    flags = on_front(table, ("loss", "gates"))
    for i, row in table.iterrows():
        dominated = ((table["loss"] <= row["loss"]) & (table["gates"] <= row["gates"])
                     & ((table["loss"] < row["loss"]) | (table["gates"] < row["gates"]))).any()  # fmt: skip
        assert flags[i] == (not dominated)


def test_best_only_where_one_regime_is_closest_on_both():
    base = {"cell": "lstm", "seeds": 1}
    found = [
        Target(Summary("l", "loss", "lstm", "best_val_loss", "nats", "none"), 1.5, 0.0, 1, 1e-4, 3),
        Target(Summary("g", "gates", "lstm", "forget_p50", "logit", "none"), 0.0, 0.0, 1, 1e-2, 3),
    ]

    def table_for(values):
        regimes = pd.DataFrame(
            [{**base, "regime": r, "best_val_loss": lv, "forget_p50": gv} for r, lv, gv in values]
        )
        return distance_table(regimes, found, confirm_seeds=3).set_index("regime")

    both = table_for([("a", 1.5, 0.5), ("b", 1.6, 0.7)])
    assert both["best"].to_dict() == {"a": True, "b": False}
    split = table_for([("a", 1.5, 0.7), ("b", 1.6, 0.5), ("c", 1.7, 0.8)])
    assert not split["best"].any() and split["on_front"].to_dict() == {"a": True, "b": True, "c": False}
    assert set(split["front_on"]) == {"loss and gates"}


def test_a_diverged_regime_is_left_off_the_front_and_says_why():
    """A regime whose training diverged (round two's SGD at lr 1 clipped at 5) has no
    distance on either block; the front is still read on both over the others."""
    found = [
        Target(Summary("l", "loss", "lstm", "best_val_loss", "nats", "none"), 1.5, 0.0, 1, 1e-4, 3),
        Target(Summary("g", "gates", "lstm", "forget_p50", "logit", "none"), 0.0, 0.0, 1, 1e-2, 3),
    ]
    rows = [
        {"regime": "a", "best_val_loss": 1.5, "forget_p50": 0.7, "seeds": 1, "diverged_seeds": 0},
        {"regime": "b", "best_val_loss": 1.6, "forget_p50": 0.5, "seeds": 1, "diverged_seeds": 0},
        {"regime": "c", "best_val_loss": 1.7, "forget_p50": 0.8, "seeds": 1, "diverged_seeds": 0},
        {"regime": "lost", "best_val_loss": math.nan, "forget_p50": math.nan, "seeds": 0,
         "diverged_seeds": 1, "diverged_at_step": 4.0},
    ]  # fmt: skip
    regimes = pd.DataFrame([{"cell": "lstm", "model": "lstm_w325", **r} for r in rows])
    table = distance_table(regimes, found, confirm_seeds=3).set_index("regime")
    assert set(table["front_on"]) == {"loss and gates"}
    assert table["on_front"].to_dict() == {"a": True, "b": True, "c": False, "lost": False}
    assert not table.loc["lost", "near_front"] and not table["best"].any()
    assert table.loc["lost", "loss_unscored"].endswith("its training diverged (lstm_w325 by step 4)")
    assert "lost" not in regimes_to_confirm(table.reset_index())
    # the others' front is what it is without the diverged regime
    alone = distance_table(regimes[regimes["regime"] != "lost"], found, confirm_seeds=3).set_index("regime")
    pd.testing.assert_frame_equal(table.drop(index="lost"), alone, check_dtype=False)


def test_the_scoreboard_page_lists_every_summary():
    page = (REPO / "docs" / "protocol-scoreboard.md").read_text()
    for s in SUMMARIES:
        assert f"| `{s.name}` | {s.block} | `{s.cell}` rows, `{s.column}` | {s.scale} |" in page, s.name


def test_seed_noise_limit_is_the_chi_square_quantile():
    # chi-square 95th percentiles (k = 1, 3, 23), divided by k
    for k, quantile in ((1, 3.841458820694124), (3, 7.814727903251178), (23, 35.17246162690806)):
        assert seed_noise_limit(k) == pytest.approx(quantile / k, rel=1e-9)


def test_the_pages_open_with_the_answer_the_code_gives_on_the_committed_reference():
    from gatedrnn.reference.tables import reference_answer
    from gatedrnn.report.protocol_answer import ANSWER_BEGIN, ANSWER_END

    config = load_config([str(REPO / "config/config.yaml")])
    for page, ledger in ((REPO / "README.md", False), (REPO / "docs/protocol-scoreboard.md", True)):
        block = page.read_text().split(ANSWER_BEGIN, 1)[1].split(ANSWER_END, 1)[0]
        assert block == "\n" + reference_answer(REFERENCE.parent, config, REPO, ledger=ledger), (
            f"{page.name} is stale: run python -m gatedrnn.reference pages"
        )
    # the loss block is scored on the committed reference; the answer names its closest regime
    text = reference_answer(REFERENCE.parent, config, REPO, ledger=True)
    assert "**The loss table.**" in text and "**The gates.**" in text
    assert "**The claims ledger under the inferred protocol.**" in text


def test_a_row_is_confirmed_when_its_distances_rest_on_every_confirmation_seed():
    tables, names = reference_inputs()
    regimes = reference_regimes()  # two regimes at the confirmation's 3 seeds, the rest at 1
    seeds = regimes.groupby("regime")["seeds"].min()
    table = distance_table(regimes, targets(CLAIMS, tables, names), confirm_seeds=3).set_index("regime")
    assert (table["seeds"] == seeds.reindex(table.index)).all()
    assert table["confirmed"].to_dict() == (seeds >= 3).reindex(table.index).to_dict()
    assert 0 < table["confirmed"].sum() < len(table)
    # more seeds asked of a confirmation: none of them is confirmed yet
    assert not distance_table(regimes, targets(CLAIMS, tables, names), confirm_seeds=4)["confirmed"].any()


def test_the_answer_never_calls_an_unconfirmed_regime_the_answer():
    from gatedrnn.reference.tables import reference_answer

    config = load_config([str(REPO / "config/config.yaml")])
    text = reference_answer(REFERENCE.parent, config, REPO, ledger=True)
    # the closest rests on the confirmation's 3 seeds: the answer, in bold; the regime near
    # it on one seed is named with what it lacks
    assert (
        "the protocol closest to the study's loss table is **sgd 1 x 800 at 32x128, small corpus** (3 seeds)"
        in text
    )
    assert "adam 0.0005 x 800 at 32x128, " in text and "(1 seed, not yet confirmed at 3 seeds)" in text
    # a confirmation of 4 seeds: the same closest regime, no longer called the answer anywhere
    config["protocol"]["confirm"]["seeds"] = [0, 1, 2, 3]
    text = reference_answer(REFERENCE.parent, config, REPO, ledger=True)
    assert "**sgd 1 x 800" not in text and "the protocol closest" not in text
    assert (
        "the closest to the study's loss table so far is sgd 1 x 800 at 32x128, small corpus "
        "(3 seeds, not yet confirmed at 4 seeds)" in text
    )
    assert "at 3 seeds, not yet confirmed at 4 seeds)" in text  # the ledger beside the default


def test_the_front_figure_draws_unconfirmed_regimes_as_open_markers():
    """Issue #48: a regime on fewer seeds than the confirmation's is an open marker, and
    the legend says on how many seeds (read from the table); a table made before
    `confirmed` is drawn with every marker filled, as before."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    from gatedrnn.report.protocol import front_figure

    tables, names = reference_inputs()
    table = distance_table(reference_regimes(), targets(CLAIMS, tables, names), confirm_seeds=3)

    def markers(fig) -> dict[str, list]:
        """Face colour of every regime marker drawn, by whether it is open (white)."""
        drawn = {"open": [], "filled": []}
        for ax in fig.axes:
            for container in ax.containers:
                line = container.lines[0]
                kind = "open" if to_rgba(line.get_markerfacecolor()) == to_rgba("white") else "filled"
                drawn[kind] += list(line.get_xdata())
        return drawn

    fig = front_figure(table)
    drawn = markers(fig)
    unconfirmed = table[~table["confirmed"]]
    assert sorted(drawn["open"]) == sorted(unconfirmed["loss"]) and len(drawn["open"]) > 0
    assert sorted(drawn["filled"]) == sorted(table[table["confirmed"]]["loss"])
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    seeds = unconfirmed["seeds"].unique()  # the reference: one seed each
    assert list(seeds) == [1] and "open: 1 seed, not yet confirmed" in legend
    plt.close(fig)
    # the counts come from the table: two seeds short of a confirmation of three
    fig = front_figure(table.assign(seeds=table["seeds"].where(table["confirmed"], 2)))
    assert "open: 2 seeds, not yet confirmed" in [t.get_text() for t in fig.legends[0].get_texts()]
    plt.close(fig)
    old = front_figure(table.drop(columns="confirmed"))
    assert not markers(old)["open"] and len(markers(old)["filled"]) == len(table)
    assert not [t for t in old.legends[0].get_texts() if "confirmed" in t.get_text()]
    plt.close(old)


def test_the_front_figure_keeps_the_numbers_of_regimes_drawn_together_apart():
    """Issue #48: front regimes drawn almost on one spot (both rounds' front has such
    pairs) each get a number whose box overlaps no other number's."""
    import matplotlib.pyplot as plt

    from gatedrnn.report.protocol import front_figure

    tables, names = reference_inputs()
    table = distance_table(reference_regimes(), targets(CLAIMS, tables, names), confirm_seeds=3)
    # every regime given a gate distance (today's reference scores none), and four on the
    # front within 2 % of one another on both axes
    crowded = table.assign(gates=np.linspace(20.0, 900.0, len(table)), on_front=False)
    together = crowded.index[:4]
    crowded.loc[together, "on_front"] = True
    crowded.loc[together, "loss"] = [10.0, 10.1, 10.2, 9.9]
    crowded.loc[together, "gates"] = [40.0, 40.5, 39.6, 40.2]
    for block in ("loss", "gates"):
        crowded[f"{block}_low"], crowded[f"{block}_high"] = crowded[block] * 0.9, crowded[block] * 1.1
    fig = front_figure(crowded)
    numbers = [t for ax in fig.axes for t in ax.texts if t.get_text().isdigit()]
    assert sorted(int(t.get_text()) for t in numbers) == list(range(1, int(crowded["on_front"].sum()) + 1))
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in numbers]
    overlapping = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.overlaps(b)]
    assert not overlapping
    plt.close(fig)


def test_the_interval_holds_its_distance_and_covers_the_expected_distance():
    """Simulated runs: three loss terms, each drawn once around a known true difference
    with the seed noise the target states; the block's distance must lie inside its own
    interval (the redraw's added noise is taken off), and the interval must cover the
    distance's expectation (true squared differences plus one unit of noise per term,
    relative to its denominator) at least at its nominal level, within a tolerance of
    the simulation's own error."""
    rng = np.random.default_rng(2026)
    sd = 0.003
    found = [
        Target(Summary(name, "loss", "lstm", name, "nats", "none"), 1.5, 0.0, 1, sd**2, 1)
        for name in ("a", "b", "c")
    ]
    runs = 200
    for true_difference in (0.0, 1.0 * sd, 4.0 * sd):
        values = 1.5 + true_difference + rng.standard_normal((runs, 3)) * sd
        regimes = pd.DataFrame(
            [{"regime": f"r{i}", "cell": "lstm", "seeds": 1, "a": v[0], "b": v[1], "c": v[2]}
             for i, v in enumerate(values)]
        )  # fmt: skip
        table = block_distances(regimes, found)
        assert ((table["loss_low"] <= table["loss"]) & (table["loss"] <= table["loss_high"])).all()
        expected = (true_difference / sd) ** 2 + 1.0
        covered = ((table["loss_low"] <= expected) & (expected <= table["loss_high"])).mean()
        assert covered >= 0.95 - 2 * math.sqrt(0.95 * 0.05 / runs), (true_difference, covered)


def test_the_answer_reads_both_rounds_once_round_two_is_in_the_reference(tmp_path):
    """Issue #48: with round two's front and its confirmation in ``reference/``, the
    answer is read over both rounds: a round-two point is named with its axis, round
    two's share of the front is said, and a point whose training diverged is named
    as left off the front, with why."""
    import shutil

    from gatedrnn.claims.front import both_rounds
    from gatedrnn.reference.tables import reference_answer

    reference = tmp_path / "reference"
    shutil.copytree(REFERENCE.parent, reference, ignore=shutil.ignore_patterns("*.png", "*.html"))
    tables, names = reference_inputs()
    first = regime_frame(
        pd.read_csv(REFERENCE / "regime_sensitivity.csv"), pd.read_csv(REFERENCE / "corpus_size.csv")
    )
    confirmed = pd.read_csv(REFERENCE / "protocol_confirmation_regimes.csv")
    base = "sgd_lr1_steps800_small"
    rows = first[first["regime"] == base]
    kept = rows.assign(regime=f"{base}__clip_norm0.25", best_val_loss=rows["best_val_loss"] + 0.001)
    lost = rows.assign(regime=f"{base}__clip_norm5", best_val_loss=math.nan, seeds=0, diverged_seeds=1,
                       diverged_at_step=4.0)  # fmt: skip
    lost[[c for c in AVERAGED if c in lost.columns]] = math.nan  # a diverged model has no gates either
    second = pd.concat([kept, lost], ignore_index=True)
    planned = pd.DataFrame(
        [{"regime": f"{base}__clip_norm{v:g}", "from_regime": base, "axis": "clip_norm", "value": v}
         for v in (0.25, 5.0)]
    )  # fmt: skip
    front = both_rounds(first, confirmed, second, planned, CLAIMS, tables, names, confirm_seeds=3)
    assert (
        len(set(front["front_on"])) == 1
        and not front.loc[front["regime"] == f"{base}__clip_norm5", "on_front"].any()
    )
    tables_dir = reference / "tables"
    front.to_csv(tables_dir / "protocol_round_two_front.csv", index=False)
    second.to_csv(tables_dir / "protocol_round_two_regimes.csv", index=False)
    second.head(0).to_csv(tables_dir / "protocol_round_two_confirmation_regimes.csv", index=False)
    config = load_config([str(REPO / "config/config.yaml")])
    text = reference_answer(reference, config, REPO, ledger=True)
    assert f"Of {len(front)} regimes" in text
    assert "round two tried 2 points around round one's front (one axis at a time: clip)" in text
    assert (
        "1 of the " + str(len(front)) + " are scored on neither block and left off the front: "
        "sgd 1 x 800 at 32x128, small corpus, clip 5, where its training diverged "
        "(lstm_w325, gru_budget325 by step 4)"
    ) in text
    # without round two's front the answer is round one's, as before
    (tables_dir / "protocol_round_two_front.csv").unlink()
    assert "round two tried" not in reference_answer(reference, config, REPO, ledger=True)
