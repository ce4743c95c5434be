# Which protocol did the study use (`protocol`)? The study published neither its
# optimizer, nor its learning rate, nor its corpus file. The regime sweep's optimizer
# points are trained again on a small corpus (the corpus's first characters, about the
# size of "tiny Shakespeare"); every regime of both is scored against the study's
# trained claims (gatedrnn.claims.scoreboard); the best regimes are trained again at
# more seeds and scored again. The scoreboard is a checkpoint: which regimes the
# confirmation trains is known only once it exists (a dry run stops there).

from gatedrnn.plan import CORPUS_SIZE, PROTOCOL_CONFIRMATION, PROTOCOL_FIGURE, PROTOCOL_SCOREBOARD
from gatedrnn.plan.published import regime_view_tables


rule small_corpus:
    """The corpus-size axis's text: the corpus's first protocol.small_corpus.chars
    characters, cut back to a line end (gatedrnn.io.variants)."""
    input:
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        text=DATASETS["small_corpus"]["corpus"],
        provenance=DATASETS["small_corpus"]["provenance"],
    log:
        log_for("small_corpus"),
    conda:
        ENV
    params:
        code=code_version("small_corpus.py"),
        chars=config["protocol"]["small_corpus"]["chars"],
    script:
        "../scripts/small_corpus.py"


use rule regime_sensitivity as corpus_size with:
    input:
        summaries=PLAN.corpus_size_files("summary.json"),
        histories=PLAN.corpus_size_files("history.csv"),
        gates=PLAN.corpus_size_files("gates"),
    output:
        table=reported(CORPUS_SIZE, "H"),
    log:
        log_for("corpus_size"),
    params:
        code=code_version("regime_sensitivity.py"),
        points=list(PLAN.corpus_size_points),


# The claims' own tables: a regime is judged by the band of the claim itself (its seeds' spread).
REGIME_VIEW_TABLES = regime_view_tables(PUBLISHED)


checkpoint protocol_scoreboard:
    """Every regime of both sweeps judged on the study's trained claims, best first."""
    input:
        regimes=([REGIME_SENSITIVITY] if PLAN.sweep_points else []) + [CORPUS_SIZE],
        tables=REGIME_VIEW_TABLES,
    output:
        table=reported(PROTOCOL_SCOREBOARD, "H"),
    log:
        log_for("protocol_scoreboard"),
    conda:
        ENV
    params:
        code=code_version("protocol_scoreboard.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
    script:
        "../scripts/protocol_scoreboard.py"


def confirmation_runs(wildcards):
    """The confirmation's runs: the sweep models of the scoreboard's best regimes at
    every seed of protocol.confirm.seeds (known once the scoreboard exists)."""
    # imported here, not when the DAG is planned: only a run past the checkpoint needs it
    import pandas as pd

    from gatedrnn.claims.scoreboard import best_regimes

    table = pd.read_csv(checkpoints.protocol_scoreboard.get().output.table)
    return PLAN.confirmation_runs(best_regimes(table, config["protocol"]["confirm"]["regimes"]))


rule protocol_confirmation:
    """The scoreboard's best regimes at protocol.confirm.seeds, scored again."""
    input:
        scoreboard=PROTOCOL_SCOREBOARD,
        summaries=lambda wildcards: run_files(confirmation_runs(wildcards), "summary.json"),
        histories=lambda wildcards: run_files(confirmation_runs(wildcards), "history.csv"),
        gates=lambda wildcards: run_files(confirmation_runs(wildcards), "gates"),
        tables=REGIME_VIEW_TABLES,
    output:
        table=reported(PROTOCOL_CONFIRMATION, "H"),
        regimes="results/tables/protocol_confirmation_regimes.csv",
    log:
        log_for("protocol_confirmation"),
    conda:
        ENV
    params:
        code=code_version("protocol_confirmation.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        points=list(PLAN.sweep_points) + list(PLAN.corpus_size_points),
        regimes=config["protocol"]["confirm"]["regimes"],
        seeds=config["protocol"]["confirm"]["seeds"],
    script:
        "../scripts/protocol_confirmation.py"


rule protocol_scoreboard_figure:
    """Agreements and band distance per regime, best first."""
    input:
        scoreboard=PROTOCOL_SCOREBOARD,
        confirmation=PROTOCOL_CONFIRMATION,
    output:
        reported(PROTOCOL_FIGURE, "H"),
    log:
        log_for("protocol_scoreboard_figure"),
    conda:
        ENV
    params:
        code=code_version("protocol_scoreboard_figure.py"),
    script:
        "../scripts/protocol_scoreboard_figure.py"
