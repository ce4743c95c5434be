# Gated recurrent cells taken apart: the reproduction workflow.
#
#   snakemake --cores 8                                   # everything
#   snakemake --cores 2 results/tables/gru_vs_lstm.csv    # one artifact and what it needs
#   snakemake --cores 2 --configfile config/smoke.yaml    # the whole DAG, tiny
#
# One rules file per stage under workflow/rules/; helpers in common.smk; the plan of
# runs (every regime, run, file and target of the config) in src/gatedrnn/plan/.


# A --configfile on the command line replaces config/config.yaml as a whole (several
# merge key by key, in order): Snakemake alone would merge it into this one.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


# The HTML report's front page (`snakemake --report results/report.html` after a run):
# the claims ledger first, then every flagged figure and table by experiment family.
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/closed_form.smk"
include: "workflow/rules/gates.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/open_questions.smk"
include: "workflow/rules/regime_sweep.smk"
include: "workflow/rules/protocol.smk"


rule all:
    default_target: True
    input:
        # every stage's targets under this config (gatedrnn.plan.Plan.targets)
        list(PLAN.targets.values()),


# The reference run's stages (reference/README.md): the study's own experiments
# (grid, forget-bias sweep, closed forms), then the regime sweep, then the open
# questions, then which protocol reproduces the study; `snakemake --cores 2
# stage_study` and so on, one per session.
rule stage_study:
    input:
        PLAN.targets["tables"],
        PLAN.targets["closed_form"],
        PLAN.targets["gates"],


rule stage_regimes:
    input:
        PLAN.targets["regime_sweep"],


rule stage_questions:
    input:
        PLAN.targets["open_questions"],


rule stage_protocol:
    input:
        PLAN.targets["protocol"],
        # E3's forget-bias inversion checked independently (a study table, made later)
        "results/tables/forget_bias_memory_check.csv",


# On a cluster only training and gate extraction go to the scheduler: every other
# rule takes seconds, and a queued job would wait longer than it runs.
SCHEDULED_RULES = {"train", "gates"}

workflow.localrules(*(r.name for r in workflow.rules if r.name not in SCHEDULED_RULES))
