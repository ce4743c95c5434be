# Beyond the study (section G): the questions it left open, one table each
# (gatedrnn.questions: one module per question). Every answer has a switch under `open_questions`;
# switched off, neither its table nor the models only it needs are part of
# `rule all`. Models go through the one `train` rule: new cells (gru_noreset,
# cho_gru), other widths, and regimes (steps_x4, two_layers, long_memory...).
# The runs each answer reads: PLAN.questions (gatedrnn.plan.questions).

QUESTION_RUNS = PLAN.questions
LONG_MEMORY = config["open_questions"]["long_memory"]


rule open_reset_gate:
    """What the reset gate does: the budget GRU with r pinned to 1 (no retraining),
    and gru_noreset (r fixed at 1) trained against gru at the same width."""
    input:
        models=run_files(QUESTION_RUNS.reset_pinned, "model.pt"),
        summaries=run_files(QUESTION_RUNS.reset_pinned, "summary.json"),
        noreset=run_files(QUESTION_RUNS.reset_noreset, "summary.json"),
        gru=run_files(QUESTION_RUNS.reset_gru, "summary.json"),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        reported("results/tables/open_reset_gate.csv", "G", "G1 the reset gate"),
    log:
        log_for("open_questions/open_reset_gate"),
    conda:
        ENV
    params:
        code=code_version("open_reset_gate.py"),
        train_fraction=config["split"]["train_fraction"],
    script:
        "../scripts/open_reset_gate.py"


rule split_by_width:
    """The structure/width split of the GRU's advantage with the LSTM at other widths."""
    input:
        summaries=run_files(QUESTION_RUNS.split_by_width, "summary.json"),
    output:
        reported("results/tables/split_by_width.csv", "G", "G2 split by width"),
    log:
        log_for("open_questions/split_by_width"),
    conda:
        ENV
    params:
        code=code_version("split_by_width.py"),
    script:
        "../scripts/split_by_width.py"


rule two_layers:
    """GRU against LSTM (D3, D4) at one and at two stacked layers, with each median's
    interval over seeds and the gap to the LSTM paired by seed; the split, D4's table
    at each layer count, with each part's interval paired by seed."""
    input:
        summaries=run_files(QUESTION_RUNS.two_layers, "summary.json"),
    output:
        table=reported("results/tables/two_layers.csv", "G", "G3 two layers"),
        split=reported("results/tables/two_layers_split.csv", "G", "G3 two layers"),
    log:
        log_for("open_questions/two_layers"),
    conda:
        ENV
    params:
        **PLAN.comparison_ids,
        code=code_version("two_layers.py"),
    script:
        "../scripts/two_layers.py"


rule longer_training:
    """Where the gates go, and whether validation turns, when training continues."""
    input:
        summaries=run_files(QUESTION_RUNS.longer_training, "summary.json"),
        histories=run_files(QUESTION_RUNS.longer_training, "history.csv"),
        gates=run_files(QUESTION_RUNS.longer_training, "gates"),
    output:
        table=reported("results/tables/longer_training.csv", "G", "G4 longer training"),
        curves="results/tables/longer_training_curves.csv",
    log:
        log_for("open_questions/longer_training"),
    conda:
        ENV
    params:
        code=code_version("longer_training.py"),
    script:
        "../scripts/longer_training.py"


rule cho_vs_pytorch_gru:
    """The reset-before ("Cho") GRU against PyTorch's reset-after GRU, same data, with
    each median's interval over seeds and the gap paired by seed."""
    input:
        summaries=run_files(QUESTION_RUNS.cho_gru, "summary.json"),
    output:
        reported("results/tables/cho_vs_pytorch_gru.csv", "G", "G5 the Cho GRU"),
    log:
        log_for("open_questions/cho_vs_pytorch_gru"),
    conda:
        ENV
    params:
        code=code_version("cho_vs_pytorch_gru.py"),
        pytorch_models=QUESTION_RUNS.cho_pairs,
    script:
        "../scripts/cho_vs_pytorch_gru.py"


rule long_memory_corpus:
    """The copy task (gatedrnn.io.synthetic.copy_task): a key repeated `distance` later."""
    output:
        text=DATASETS["long_memory"]["corpus"],
        provenance=DATASETS["long_memory"]["provenance"],
    log:
        log_for("open_questions/long_memory_corpus"),
    conda:
        ENV
    params:
        code=code_version("long_memory_corpus.py"),
        chars=LONG_MEMORY["chars"],
        distance=LONG_MEMORY["distance"],
        seed=LONG_MEMORY["seed"],
        n_keys=LONG_MEMORY["keys"],
        n_fillers=LONG_MEMORY["fillers"],
    script:
        "../scripts/long_memory_corpus.py"


rule long_memory:
    """Do the gates stay open when the task needs memory, and does an open forget bias help?"""
    input:
        models=run_files(QUESTION_RUNS.long_memory, "model.pt"),
        summaries=run_files(QUESTION_RUNS.long_memory, "summary.json"),
        counterparts=run_files(
            QUESTION_RUNS.long_memory_counterpart_runs, "summary.json"
        ),
        corpus=DATASETS["long_memory"]["corpus"],
        provenance=DATASETS["long_memory"]["provenance"],
    output:
        reported("results/tables/long_memory.csv", "G", "G6 long memory"),
    log:
        log_for("open_questions/long_memory"),
    conda:
        ENV
    params:
        code=code_version("long_memory.py"),
        distance=LONG_MEMORY["distance"],
        n_keys=LONG_MEMORY["keys"],
        n_fillers=LONG_MEMORY["fillers"],
        lines=LONG_MEMORY["probe_lines"],
        length=config["probe"]["length"],
        train_fraction=config["split"]["train_fraction"],
        counterparts=QUESTION_RUNS.long_memory_counterparts,
    script:
        "../scripts/long_memory.py"


rule open_questions_report:
    """Each answer in one sentence with its numbers, from the tables (Markdown)."""
    input:
        tables=PLAN.open_question_tables,
    output:
        reported("results/open_questions.md", "G", "G0 the answers"),
    log:
        log_for("open_questions/open_questions_report"),
    conda:
        ENV
    params:
        code=code_version("open_questions_report.py"),
        toy=TOY_NOTE,
    script:
        "../scripts/open_questions_report.py"


rule split_by_width_figure:
    input:
        table="results/tables/split_by_width.csv",
    output:
        reported("results/figures/split_by_width.png", "G", "G2 split by width"),
    log:
        log_for("open_questions/split_by_width_figure"),
    conda:
        ENV
    params:
        code=code_version("open_question_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        # the width the ledger judges D4 at (the grid's reference LSTM)
        reference_width=PLAN.reference_width,
        figure="split_by_width",
    script:
        "../scripts/open_question_figure.py"


rule longer_training_figure:
    input:
        table="results/tables/longer_training.csv",
        curves="results/tables/longer_training_curves.csv",
    output:
        reported("results/figures/longer_training.png", "G", "G4 longer training"),
    log:
        log_for("open_questions/longer_training_figure"),
    conda:
        ENV
    params:
        code=code_version("open_question_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        figure="longer_training",
    script:
        "../scripts/open_question_figure.py"


# G7, what the normalisation changes: the tables the ledger reads from the comparison's
# models made again, by the same rules, from the question's regime (today's old model:
# no normalisation, the corpus's own alphabet), under results/model_normalisation/tables/.
from gatedrnn.plan.paths import MODEL_NORMALISATION_DIR, MODEL_NORMALISATION_TABLES

OLD_MODEL = config["open_questions"]["model_normalisation"]["regime"]
OLD_MODEL_TABLE = {
    name: f"{MODEL_NORMALISATION_DIR}/{name}"
    for name in (
        *MODEL_NORMALISATION_TABLES,
        "lstm_coupling_histogram.csv",
        "unit_gate_means.csv",
    )
}
OLD_LSTM_GATES = PLAN.gate_files([PLAN.reference_lstm], regime=OLD_MODEL)
OLD_GRU_GATES = PLAN.gate_files([PLAN.budget_matched_gru], regime=OLD_MODEL)


use rule gru_vs_lstm as model_normalisation_gru_vs_lstm with:
    input:
        summaries=PLAN.grid_files(
            "summary.json", models=PLAN.comparison, regime=OLD_MODEL
        ),
    output:
        OLD_MODEL_TABLE["gru_vs_lstm.csv"],
    log:
        log_for("open_questions/model_normalisation/gru_vs_lstm"),


use rule gru_advantage_split as model_normalisation_gru_advantage_split with:
    input:
        OLD_MODEL_TABLE["gru_vs_lstm.csv"],
    output:
        OLD_MODEL_TABLE["gru_advantage_split.csv"],
    log:
        log_for("open_questions/model_normalisation/gru_advantage_split"),


use rule lstm_gates as model_normalisation_lstm_gates with:
    input:
        gates=OLD_LSTM_GATES,
    output:
        table=OLD_MODEL_TABLE["lstm_gates.csv"],
    log:
        log_for("open_questions/model_normalisation/lstm_gates"),


use rule lstm_forget_units as model_normalisation_lstm_forget_units with:
    input:
        gates=OLD_LSTM_GATES,
    output:
        table=OLD_MODEL_TABLE["lstm_forget_units.csv"],
    log:
        log_for("open_questions/model_normalisation/lstm_forget_units"),


use rule lstm_forget_by_char as model_normalisation_lstm_forget_by_char with:
    input:
        gates=OLD_LSTM_GATES,
    output:
        table=OLD_MODEL_TABLE["lstm_forget_by_char.csv"],
    log:
        log_for("open_questions/model_normalisation/lstm_forget_by_char"),


use rule lstm_coupling as model_normalisation_lstm_coupling with:
    input:
        gates=OLD_LSTM_GATES,
    output:
        table=OLD_MODEL_TABLE["lstm_coupling.csv"],
        histogram=OLD_MODEL_TABLE["lstm_coupling_histogram.csv"],
    log:
        log_for("open_questions/model_normalisation/lstm_coupling"),


use rule gru_gates as model_normalisation_gru_gates with:
    input:
        gates=OLD_GRU_GATES,
    output:
        table=OLD_MODEL_TABLE["gru_gates.csv"],
    log:
        log_for("open_questions/model_normalisation/gru_gates"),


use rule unit_half_lives as model_normalisation_unit_half_lives with:
    input:
        gates=OLD_LSTM_GATES + OLD_GRU_GATES,
    output:
        table=OLD_MODEL_TABLE["unit_half_lives.csv"],
        units=OLD_MODEL_TABLE["unit_gate_means.csv"],
    log:
        log_for("open_questions/model_normalisation/unit_half_lives"),


rule model_normalisation:
    """The study's model against the old one: the losses, gate means and D4 split of
    both, and which published verdicts change when the old model's tables stand in."""
    input:
        study=[f"results/tables/{name}" for name in MODEL_NORMALISATION_TABLES],
        old=[OLD_MODEL_TABLE[name] for name in MODEL_NORMALISATION_TABLES],
    output:
        reported("results/tables/model_normalisation.csv", "G", "G7 the normalisation"),
    log:
        log_for("open_questions/model_normalisation"),
    conda:
        ENV
    params:
        code=code_version("model_normalisation.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
    script:
        "../scripts/model_normalisation.py"


# G8, does tying the gates cost the LSTM anything: the tied-gate LSTM (cifg) at the
# reference LSTM's width and budget; the grid's reference LSTM and budget GRU are reused.
COUPLED_GATES = {
    "lstm": PLAN.model_id("lstm", PLAN.reference_width),
    "cifg_same_width": PLAN.model_id("cifg", PLAN.reference_width),
    "cifg_same_budget": PLAN.model_id("cifg", "budget"),
    "gru_same_budget": PLAN.model_id("gru", "budget"),
}


rule coupled_gates:
    """The LSTM with i = 1 - f against the LSTM and the budget GRU: losses, keep-gate
    half-lives, and D4's split with the tie as the only change."""
    input:
        summaries=run_files(QUESTION_RUNS.coupled_gates, "summary.json"),
        gates=run_files(QUESTION_RUNS.coupled_gates, "gates"),
    output:
        reported("results/tables/coupled_gates.csv", "G", "G8 the tied gates"),
    log:
        log_for("open_questions/coupled_gates"),
    conda:
        ENV
    params:
        code=code_version("coupled_gates.py"),
        models=COUPLED_GATES,
    script:
        "../scripts/coupled_gates.py"
