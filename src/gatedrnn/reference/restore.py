"""A collected stage's tables, figures and seed rows put back into a run's ``results/``,
so that a stage goes on from them on a machine without the earlier stages' ``results/``
(a fresh machine): ``python -m gatedrnn.reference restore``. The seed rows (one small
file per regime sweep model, ``results/regime_runs/``) let a part that stopped half way
(round two of the protocol search, collected with ``--partial``) go on without training
the models it had finished: a table of regimes reads only their seed rows.

Snakemake runs a job again for a missing input only when a job that reads it has to
run, so a run that holds the earlier stages' tables builds the next part's targets
(round two of the protocol search, say) on them, without training the earlier models
again. Two things keep it that way: every restored file gets one modification time
(a restored table is never newer than the restored table it was built from), and it
is later than the files the run already had, so the corpus files are built before
the restore (a corpus file built after it is newer than the tables, and Snakemake would
train the models that read it again; restoring again stamps the tables anew).

A file the run already holds is kept when its bytes are the collected ones and
refused when they differ: it was built here from other models, and the collected one
would hide that. Every file is checked before any is written."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gatedrnn.io.files import atomic_write_bytes
from gatedrnn.reference.manifest import MANIFEST, SEED_ROWS

# what a stage collects from results/ (the ledger's files live beside them, not in results/)
RESTORED_FOLDERS = ("tables", "figures", SEED_ROWS)


def stage_files(reference: Path, stages: list[str] | None = None) -> list[str]:
    """The files (relative to ``results/``) the named stages collected, every stage's
    when ``stages`` is None, each once, in the manifest's order."""
    manifest = json.loads((reference / MANIFEST).read_text())
    collected = manifest.get("stages", {})
    unknown = [stage for stage in stages or [] if stage not in collected]
    if unknown:
        raise ValueError(
            f"{reference / MANIFEST} has no stage {', '.join(unknown)}; "
            f"it has {', '.join(collected) or 'none'}"
        )
    chosen = list(collected) if stages is None else stages
    files: list[str] = []
    for stage in chosen:
        for name in collected[stage].get("files", []):
            if Path(name).parts[0] in RESTORED_FOLDERS and name not in files:
                files.append(name)
    return files


def restore(
    reference: Path, results: Path, stages: list[str] | None = None, now: float | None = None
) -> dict:
    """Copy the named stages' files from ``reference`` into ``results``; returns the
    files written and those already there with the same bytes (``restored``, ``kept``),
    all stamped with one modification time, ``now`` (the clock's by default)."""
    files = stage_files(reference, stages)
    lacking = [name for name in files if not (reference / name).is_file()]
    if lacking:
        raise ValueError(
            f"{reference} lacks {lacking[0]} (and {len(lacking) - 1} more), which its {MANIFEST} lists: "
            "check out the whole folder"
        )
    restored, kept = [], []
    for name in files:
        target = results / name
        if not target.exists():
            restored.append(name)
        elif target.read_bytes() == (reference / name).read_bytes():
            kept.append(name)
        else:
            raise ValueError(
                f"{target} differs from the collected {reference / name}: it was built here; "
                "restore into a results/ without it (move it away) or go on without restoring"
            )
    for name in restored:
        atomic_write_bytes(results / name, (reference / name).read_bytes())
    stamp = time.time() if now is None else now
    for name in files:
        os.utime(results / name, (stamp, stamp))
    return {"restored": restored, "kept": kept}
