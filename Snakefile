# Gated recurrent cells taken apart: the reproduction workflow.
#
#   snakemake --cores 8                                   # everything
#   snakemake --cores 2 results/tables/gru_vs_lstm.csv    # one artifact and what it needs
#   snakemake --cores 2 --configfile config/smoke.yaml    # the whole DAG, tiny
#
# One rules file per stage under workflow/rules/; helpers in common.smk.


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/closed_form.smk"


rule all:
    default_target: True
    input:
        TABLE_TARGETS,
        CLOSED_FORM_TARGETS,
