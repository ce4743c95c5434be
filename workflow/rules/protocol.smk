# Which protocol the study used (issue #17): questions about the study's own setup
# that its printed numbers answer without any training. In `rule all` when
# protocol.enabled (gatedrnn.plan.Plan.protocol_targets).


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
    """The vocabulary the study's parameter counts imply, and the corpus choice closest
    to it (gatedrnn.tables.alphabet). One table, a row per `kind`:

    - published: a claim on the params column of gru_vs_lstm.csv (name: its id; model,
      cell, width; width_from: "model id", or the claim that published a matched
      width); published_params; implied_vocab (real: the V at which the closed form
      gives that count, with train.embed_dim and train.layers); nearest_vocab (the
      nearest integer), nearest_params (its count), params_difference (published
      minus that); params_at_corpus_vocab (the count on this run's corpus).
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
        embed_dim=config["train"]["embed_dim"],
        layers=config["train"]["layers"],
    script:
        "../scripts/alphabet_check.py"
