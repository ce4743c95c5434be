# Which protocol did the study use (`protocol`)? The study published neither its
# optimizer, nor its learning rate, nor its corpus file. The regime sweep's optimizer
# points are trained again on a small corpus (the corpus's first characters, about the
# size of "tiny Shakespeare"); every regime of both is scored against the study's
# trained claims (gatedrnn.claims.scoreboard) and measured by its loss and gate
# distances from the study (gatedrnn.claims.front); the regimes on the distances' front
# and near it are trained again at more seeds and scored again. The scoreboard is a
# checkpoint: which regimes the confirmation trains is known only once it exists (a
# dry run stops there).


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
        rows=PLAN.corpus_size_files("seed_row"),
    output:
        table=reported(CORPUS_SIZE, "H"),
    log:
        log_for("corpus_size"),
    params:
        code=code_version("regime_sensitivity.py"),
        points=list(PLAN.corpus_size_points),


checkpoint protocol_scoreboard:
    """Every regime of both sweeps judged on the study's trained claims, best first,
    and its loss and gate distances from the study with their front."""
    input:
        regimes=([REGIME_SENSITIVITY] if PLAN.sweep_points else []) + [CORPUS_SIZE],
        tables=REGIME_VIEW_TABLES,
    output:
        table=reported(PROTOCOL_SCOREBOARD, "H"),
        distance=reported(PROTOCOL_DISTANCE, "H"),
    log:
        log_for("protocol_scoreboard"),
    conda:
        ENV
    params:
        code=code_version("protocol_scoreboard.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        # how many seeds confirm a regime (the distance table's `confirmed`)
        confirm_seeds=len(config["protocol"]["confirm"]["seeds"]),
    script:
        "../scripts/protocol_scoreboard.py"


rule protocol_confirmation:
    """The front's regimes and those near it at protocol.confirm.seeds, scored and
    measured again."""
    input:
        distance=PROTOCOL_DISTANCE,
        first=([REGIME_SENSITIVITY] if PLAN.sweep_points else []) + [CORPUS_SIZE],
        rows=lambda wildcards: run_files(confirmation_runs(wildcards), "seed_row"),
        tables=REGIME_VIEW_TABLES,
    output:
        table=reported(PROTOCOL_CONFIRMATION, "H"),
        regimes=PROTOCOL_CONFIRMATION_REGIMES,
        front=reported(PROTOCOL_FRONT, "H"),
    log:
        log_for("protocol_confirmation"),
    conda:
        ENV
    params:
        code=code_version("protocol_confirmation.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        points=list(PLAN.sweep_points) + list(PLAN.corpus_size_points),
        seeds=config["protocol"]["confirm"]["seeds"],
    script:
        "../scripts/protocol_confirmation.py"


rule protocol_scoreboard_figure:
    """The front: every regime's loss distance against its gate distance, with intervals."""
    input:
        front=PROTOCOL_FRONT,
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


# The alphabet the study's parameter counts imply, against the package's files (no training).
rule corpus_inventory:
    """Every text member of the corpus source, fetched and verified as the corpus rule
    does it (gatedrnn.io.inventory): name, characters, distinct characters, sha256;
    members that are not UTF-8 text, and links, listed as skipped."""
    output:
        CORPUS_INVENTORY,
    log:
        log_for("corpus_inventory"),
    conda:
        ENV
    params:
        code=code_version("corpus_inventory.py"),
        corpus=config["corpus"],
    script:
        "../scripts/corpus_inventory.py"


rule alphabet_check:
    """The model and vocabulary the study's parameter counts imply, whether the
    configured model reproduces them, and the corpus choice closest to the vocabulary
    (gatedrnn.tables.alphabet). One table, a row per `kind`:

    - published: a claim on the params column of gru_vs_lstm.csv (name: its id; model,
      cell, width; width_from: "model id", or the claim that published a matched
      width); published_params; implied_vocab (real: the V at which the closed form
      gives that count, with the grid's embed_dim, layers and readout_norm);
      nearest_vocab (the nearest integer), nearest_params (its count),
      params_difference (published minus that); params_at_corpus_vocab (the count on
      this run's corpus's own characters); configured_params (the grid's model's count,
      train.vocabulary's size), configured_difference (published minus that).
    - derivation: the model the counts fix from PyTorch-style cells alone (name: the
      quantity; value; configured_value: the grid's model's; how): embed_plus_biases,
      rest_per_unit (V + k), rest_at_width_0 (V (E + 1)), embed_dim, biases_per_gate_block,
      vocab_size, per_unit_params (k), solutions (whole solutions), largest_miss.
    - configured_model: the grid's model (name), configured_difference (the count it
      misses by most), reproduces (True: every published count exactly).
    - joint_fit: one vocabulary and k extra parameters per hidden unit (beyond the
      grid's model) fitted to every published count at once (least squares;
      implied_vocab and extra_per_unit), both rounded (nearest_vocab;
      extra_per_unit's integer is its rounding), and the count those integers miss by
      most (params_difference; 0: all exactly).
    - candidate: one per protocol.alphabet_candidates entry (name, pattern): members
      (text members matched), skipped_members (matched members the corpus rule
      could not read: not UTF-8, links), characters and vocab_size of the members
      joined with a blank line, distance (mean |vocab_size - implied_vocab| over the
      published rows; empty if nothing matched), closest (True on the candidate at
      the smallest distance; several only on a tie).
    - configured: the corpus this run trains on (data/corpus.json), checked against
      the inventory; its distance, closest False.
    """
    input:
        inventory=CORPUS_INVENTORY,
        provenance=CORPUS_PROVENANCE,
    output:
        reported(ALPHABET_CHECK, "H", "Protocol: the alphabet"),
    log:
        log_for("alphabet_check"),
    conda:
        ENV
    params:
        code=code_version("alphabet_check.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        counts_table="results/tables/gru_vs_lstm.csv",
        candidates=config["protocol"]["alphabet_candidates"],
        members=config["corpus"]["members"],
        # the grid's model: embed_dim, layers, readout_norm, vocabulary
        train=PLAN.train_config("default"),
    script:
        "../scripts/alphabet_check.py"


# Round two (protocol.round_two; gatedrnn.plan.round_two): points around every regime on
# round one's front (not those near it: their confirmation decides), one axis at a time,
# known once the front is (a checkpoint); a regime's name (<regime>__<axis><value>) says how it trains, so the one
# `train` rule trains them. A corpus size is the small corpus's rule at another length.
use rule small_corpus as round_two_corpus with:
    output:
        text=sized_small_corpus_files("{chars}")["corpus"],
        provenance=sized_small_corpus_files("{chars}")["provenance"],
    log:
        log_for("small_corpus_{chars}"),
    params:
        code=code_version("small_corpus.py"),
        chars=lambda wildcards: int(wildcards.chars),


checkpoint protocol_round_two_plan:
    """Round two's points, from round one's front and protocol.round_two."""
    input:
        front=PROTOCOL_FRONT,
    output:
        table=reported(PROTOCOL_ROUND_TWO_PLAN, "H"),
    log:
        log_for("protocol_round_two_plan"),
    conda:
        ENV
    params:
        code=code_version("protocol_round_two_plan.py"),
        # what round one's regimes and round two's axes are planned from
        config={
            key: config[key]
            for key in ("train", "regimes", "regime_sweep", "protocol")
        },
    script:
        "../scripts/protocol_round_two_plan.py"


checkpoint protocol_round_two:
    """Round two's models at protocol.round_two.seeds, and both rounds measured again
    (a checkpoint: its front says what round two's confirmation trains)."""
    input:
        plan=PROTOCOL_ROUND_TWO_PLAN,
        first=([REGIME_SENSITIVITY] if PLAN.sweep_points else []) + [CORPUS_SIZE],
        confirmed=PROTOCOL_CONFIRMATION_REGIMES,
        rows=lambda wildcards: run_files(round_two_runs(wildcards), "seed_row"),
        tables=REGIME_VIEW_TABLES,
    output:
        table=reported(PROTOCOL_ROUND_TWO, "H"),
        regimes=PROTOCOL_ROUND_TWO_REGIMES,
    log:
        log_for("protocol_round_two"),
    conda:
        ENV
    params:
        code=code_version("protocol_round_two.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        seeds=config["protocol"]["round_two"]["seeds"],
        confirm_seeds=len(config["protocol"]["confirm"]["seeds"]),
    script:
        "../scripts/protocol_round_two.py"


rule protocol_round_two_confirmation:
    """The regimes on the front of both rounds and near it (either round) at
    protocol.confirm.seeds, and both rounds measured again with their seeds."""
    input:
        table=PROTOCOL_ROUND_TWO,
        plan=PROTOCOL_ROUND_TWO_PLAN,
        first=([REGIME_SENSITIVITY] if PLAN.sweep_points else []) + [CORPUS_SIZE],
        confirmed=PROTOCOL_CONFIRMATION_REGIMES,
        second=PROTOCOL_ROUND_TWO_REGIMES,
        rows=lambda wildcards: run_files(
            round_two_confirmation_runs(wildcards), "seed_row"
        ),
        tables=REGIME_VIEW_TABLES,
    output:
        regimes=PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES,
        front=reported(PROTOCOL_ROUND_TWO_FRONT, "H"),
    log:
        log_for("protocol_round_two_confirmation"),
    conda:
        ENV
    params:
        code=code_version("protocol_round_two_confirmation.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        points=list(PLAN.sweep_points) + list(PLAN.corpus_size_points),
        seeds=config["protocol"]["confirm"]["seeds"],
    script:
        "../scripts/protocol_round_two_confirmation.py"


rule protocol_round_two_figure:
    """The front of both rounds, drawn as round one's: round two's points as squares."""
    input:
        front=PROTOCOL_ROUND_TWO_FRONT,
    output:
        reported(PROTOCOL_ROUND_TWO_FIGURE, "H"),
    log:
        log_for("protocol_round_two_figure"),
    conda:
        ENV
    params:
        code=code_version("protocol_scoreboard_figure.py"),
    script:
        "../scripts/protocol_scoreboard_figure.py"
