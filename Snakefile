# The entry point at the repository's root (`snakemake --cores 8` here): the workflow
# is workflow/Snakefile, the layout of the Snakemake workflow catalog and of
# snakedeploy; import that file, not this one, as a `module`.
#
# The `include:` directive, with its default target (`rule all`) kept: a plain
# `include:` leaves the default target to the including file, which has no rules.
workflow.include("workflow/Snakefile", overwrite_default_target=True)
