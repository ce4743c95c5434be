"""``python -m gatedrnn.verify``: does this machine reproduce the reference's bits?

    python -m gatedrnn.verify                      # the reference's cheapest model, again (minutes)
    python -m gatedrnn.verify --cpu-isa native     # the same, unpinned: within the seed spread
    python -m gatedrnn.verify fingerprint          # every cell, tiny, against the fingerprint (seconds)
    python -m gatedrnn.verify fingerprint --record-cpu   # ... and add this CPU to it after a pass
    python -m gatedrnn.verify fingerprint --emulate Haswell-noTSX   # ... on an emulated CPU (qemu-user)

Exit status: 0 bit-identical (or, where bits are not expected to match, within the
reference's seed spread), 1 a difference, 2 nothing to compare (the message says why).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gatedrnn import numerics


def cmd_fingerprint(args) -> int:
    numerics.pin_this_process(args.cpu_isa)  # before anything imports torch
    from gatedrnn.verify import fingerprint

    path = Path(args.file)
    if not args.write and not path.is_file():  # before the trainings, not after them
        print(
            f"ERROR: --file {path} is not a file: give the fingerprint file, or --write one", file=sys.stderr
        )
        return 2
    expected = None if args.write else fingerprint.load(path)
    if expected is not None and expected["cpu_isa"] != args.cpu_isa:
        message = f"ERROR: {path} is for numerics.cpu_isa {expected['cpu_isa']}, not {args.cpu_isa}"
        print(message, file=sys.stderr)
        return 2
    # a record is checked on the models it holds (one written before a cell joined MODELS)
    names = None if expected is None else [n for n in fingerprint.MODELS if n in expected["weights_sha256"]]
    print(f"numerics fingerprint: {len(names or fingerprint.MODELS)} models, numerics.cpu_isa {args.cpu_isa}")
    found_numerics = numerics.check_in_force(args.cpu_isa)
    hashes = fingerprint.train_fingerprint(args.cpu_isa, log=print, names=names)
    if args.write:
        fingerprint.save(fingerprint.fresh(args.cpu_isa, hashes, found_numerics), path)
        print(f"wrote {path} (passed on {found_numerics['cpu_model']} alone)")
        return 0
    problems = fingerprint.differences(expected["weights_sha256"], hashes)
    if problems:
        print(f"FAIL on {found_numerics['cpu_model']} ({found_numerics['cpu_vendor']}):")
        for line in problems:
            print(f"  {line}")
        if expected.get("torch") != found_numerics["torch_version"]:
            here, there = found_numerics["torch_version"], expected.get("torch")
            print(f"  (torch {here} here, {there} in the fingerprint: another build computes otherwise)")
        return 1
    print(f"bit-identical to the fingerprint ({fingerprint.passed_before(expected, found_numerics)})")
    if args.record_cpu and args.emulated_by:
        added = fingerprint.record_emulated_pass(expected, args.emulated_by, found_numerics)
        fingerprint.save(expected, path)
        print(f"{'added' if added else 'already listed'}: {args.emulated_by} (emulated) in {path}")
    elif args.record_cpu:
        added = fingerprint.record_pass(expected, found_numerics)
        fingerprint.save(expected, path)
        print(f"{'added' if added else 'already listed'}: {found_numerics['cpu_model']} in {path}")
    return 0


def cmd_emulated(args) -> int:
    """The fingerprint again in a child process that runs on an emulated CPU (qemu-user): the
    libraries read that CPU's vendor, features and caches (CPUID) and choose their kernels by
    it, while the arithmetic stays exact IEEE. A cheap check that no kernel the pin leaves
    to the CPU's choice changes the bits; not a proof for real hardware (an emulator
    computes the approximate instructions, rcpps and rsqrtps, its own way)."""
    from gatedrnn.verify import emulation

    try:
        command, emulator = emulation.command(args.emulate)
    except emulation.NoEmulator as err:
        print(f"ERROR: {err}", file=sys.stderr)
        return 2
    child = [*command, "-m", "gatedrnn.verify", "fingerprint", "--cpu-isa", args.cpu_isa]
    child += ["--file", args.file, "--emulated-by", emulator]
    child += ["--record-cpu"] if args.record_cpu else []
    print(f"on an emulated CPU: {emulator}")
    return emulation.run(child)


def cmd_full_size(args) -> int:
    """A full-size model the workflow trained, against the fingerprint file's record of it."""
    from gatedrnn.verify import fingerprint
    from gatedrnn.verify.against_reference import compare

    name, here = fingerprint.full_size_record(Path(args.full_size))
    # the record of the setting the model was trained under, unless --file names one
    path = Path(args.file) if args.file else fingerprint.path_for(here["numerics"]["cpu_isa"])
    stored = fingerprint.load(path)
    records = stored.setdefault("full_size", {})
    trained_on = here["numerics"]
    if name not in records:
        records[name] = here | {"passed_on": [fingerprint.this_cpu(trained_on)]}
        fingerprint.save(stored, path)
        print(f"recorded {name} ({trained_on['cpu_model']}) in {path}: {here['weights_sha256'][:16]}")
        return 0
    record = records[name]
    verdict = compare(record, here, [])
    print(f"{name}, trained on {trained_on['cpu_model']}, against {path}:")
    for line in verdict.lines:
        print(f"  {line}")
    if verdict.identical and args.record_cpu:
        added = fingerprint.record_pass(record, trained_on)
        fingerprint.save(stored, path)
        print(f"{'added' if added else 'already listed'}: {trained_on['cpu_model']}")
    return 0 if verdict.identical else 1


# What marks a folder as verify's own: it makes the corpus and trains there, and a
# user's run must never be its working directory (it replaced a toy run's corpus and
# forced a retraining in its results/).
MARKER = ".gatedrnn-verify"
DEFAULT_DIRECTORY = "verify-run"


def own_directory(workdir: Path) -> None:
    """Make ``workdir`` verify's own, or refuse one that holds anything else (ValueError)."""
    if workdir.exists() and not workdir.is_dir():
        raise ValueError(f"--directory {workdir} is a file; give a new folder for verify's own run")
    held = sorted(p.name for p in workdir.iterdir()) if workdir.is_dir() else []
    if held and MARKER not in held:
        shown = ", ".join(held[:4]) + (" ..." if len(held) > 4 else "")
        raise ValueError(
            f"--directory {workdir} holds files verify did not make ({shown}): verify makes its own corpus "
            "and trains in a directory of its own, so that it touches nothing of yours; give a new or empty "
            f"folder (the default is ./{DEFAULT_DIRECTORY})"
        )
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / MARKER).write_text("made by python -m gatedrnn.verify: its corpus, model and logs\n")


def cmd_reference(args) -> int:
    import json

    import yaml

    from gatedrnn.estimate import format_hours, format_range
    from gatedrnn.plan.paths import CORPUS_PROVENANCE
    from gatedrnn.verify import against_reference as check

    manifest_path = Path(args.reference) / "manifest.json"
    workdir = Path(args.directory).resolve()
    if not manifest_path.exists():
        message = f"ERROR: {manifest_path} is missing: collect a reference first (reference/README.md)"
        print(message, file=sys.stderr)
        return 2
    manifest = json.loads(manifest_path.read_text())
    try:
        name, record = check.cheapest_model(manifest)
        problem = check.missing_bits(name, record)
        if problem:
            print(f"cannot verify: {problem}", file=sys.stderr)
            return 2
        own_directory(workdir)  # before anything is written
        print(f"verify works in {workdir} (its own: nothing outside it is written)")
        cpu_isa = args.cpu_isa or record["numerics"]["cpu_isa"]
        dropped: list[str] = []
        config = check.merged_config(manifest["config"], dropped)
        if dropped:
            print(
                "the reference's config has keys this checkout no longer knows, left out: "
                + ", ".join(dropped)
            )
        config["numerics"] = {"cpu_isa": cpu_isa}
        out = workdir / "results" / "verify"
        out.mkdir(parents=True, exist_ok=True)
        configfile, log = out / "config.yaml", out / "snakemake.log"
        configfile.write_text(yaml.safe_dump(config, sort_keys=False))
        log.write_text("")
        check.snakemake(workdir, configfile, CORPUS_PROVENANCE, log=log)  # the corpus, once
        numerics.pin_this_process(cpu_isa)  # the projection times the training's kernels
        seconds = check.projected_seconds(name, configfile, workdir, cpu_isa)
        steps = config["train"]["steps"]
        print(
            f"verify: training {name} again ({steps} steps, numerics.cpu_isa {cpu_isa}) and comparing it "
            f"with {manifest_path}: {format_range(seconds)} on this machine (the more, the busier it is)"
        )
        if cpu_isa == "native" or (config["train"]["device"] != "cpu" and check.gpu_present()):
            print(
                "bits are not expected to match (native numerics or a GPU): the best loss is "
                "compared with the spread of the reference's seeds instead"
            )
        started = time.perf_counter()
        target = f"results/models/{name}/summary.json"
        check.snakemake(workdir, configfile, "--forcerun", "train", "--", target, log=log)
        print(f"trained in {format_hours(time.perf_counter() - started)}")
        here = check.retrained(workdir, name)
    except (check.CannotVerify, FileNotFoundError, ValueError) as err:
        print(f"ERROR: {err}", file=sys.stderr)
        return 2
    verdict = check.compare(record, here, check.seed_spread(manifest, name))
    for line in verdict.lines:
        print(line)
    return 0 if verdict.identical else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default="reference", help="where manifest.json is")
    parser.add_argument(
        "--directory",
        default=DEFAULT_DIRECTORY,
        help=f"verify's own working directory (default ./{DEFAULT_DIRECTORY}): new, or one verify made",
    )
    parser.add_argument(
        "--cpu-isa",
        choices=list(numerics.SETTINGS),
        default=None,
        help="train under this numerics.cpu_isa (default: the reference model's)",
    )
    sub = parser.add_subparsers(dest="command")
    f = sub.add_parser("fingerprint", help="every cell trained tiny, against the committed fingerprint")
    f.add_argument("--cpu-isa", dest="fingerprint_isa", choices=list(numerics.SETTINGS), default=None)
    f.add_argument("--file", default=None, help="default: tests/data/numerics_fingerprint_<cpu_isa>.json")
    f.add_argument("--record-cpu", action="store_true", help="after a pass, add this CPU to passed_on")
    f.add_argument("--write", action="store_true", help="write it anew here (resets passed_on)")
    f.add_argument(
        "--emulate",
        metavar="QEMU_CPU",
        help="run it on a CPU that qemu-x86_64 emulates (Haswell-noTSX, EPYC-Milan...: "
        "qemu-x86_64 -cpu help); with --record-cpu it is added to emulated_on",
    )
    f.add_argument("--emulated-by", default=None, help=argparse.SUPPRESS)
    f.add_argument(
        "--full-size",
        metavar="MODEL_DIR",
        help="instead: a model the workflow trained (results/models/default/lstm_w325_s0) against "
        "the file's full_size record of it (recorded there when it has none)",
    )
    args = parser.parse_args(argv)
    if args.command == "fingerprint":
        from gatedrnn.verify.fingerprint import path_for

        args.cpu_isa = args.fingerprint_isa or args.cpu_isa or numerics.DEFAULT
        if args.full_size:
            return cmd_full_size(args)
        args.file = args.file or str(path_for(args.cpu_isa))
        return cmd_emulated(args) if args.emulate else cmd_fingerprint(args)
    return cmd_reference(args)


if __name__ == "__main__":
    sys.exit(main())
