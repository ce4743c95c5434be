"""The session's tally of faults injected and bad inputs tried, and what became of them.

Tests record an injection (or a bad input) before they check the outcome and record
the good outcome only once every check has passed, so a failing test leaves its entry
counted as not survived (not rejected cleanly). ``files_lost`` lists outputs of a
finished run that a fault removed or changed; it must stay empty.
"""

from __future__ import annotations

import json
from pathlib import Path


class FaultLedger:
    def __init__(self) -> None:
        self.faults: dict[str, bool] = {}
        self.bad_inputs: dict[str, bool] = {}
        self.lost: list[str] = []

    def injected(self, name: str) -> str:
        self.faults.setdefault(name, False)
        return name

    def survived(self, name: str) -> None:
        self.faults[name] = True

    def tried(self, name: str) -> str:
        self.bad_inputs.setdefault(name, False)
        return name

    def rejected(self, name: str) -> None:
        self.bad_inputs[name] = True

    def files_lost(self, paths) -> None:
        self.lost.extend(str(p) for p in paths)

    def __bool__(self) -> bool:
        return bool(self.faults or self.bad_inputs or self.lost)

    def summary(self) -> dict:
        return {
            "faults_injected": len(self.faults),
            "faults_survived": sum(self.faults.values()),
            "bad_inputs_tried": len(self.bad_inputs),
            "bad_inputs_rejected_cleanly": sum(self.bad_inputs.values()),
            "files_lost": len(self.lost),
            "lost_files": sorted(self.lost),
            "faults_not_survived": sorted(k for k, ok in self.faults.items() if not ok),
            "bad_inputs_not_rejected_cleanly": sorted(k for k, ok in self.bad_inputs.items() if not ok),
            "faults": sorted(self.faults),
            "bad_inputs": sorted(self.bad_inputs),
        }

    def headline(self) -> str:
        s = self.summary()
        return (
            f"faults injected {s['faults_injected']}, survived {s['faults_survived']}; "
            f"bad inputs tried {s['bad_inputs_tried']}, rejected cleanly "
            f"{s['bad_inputs_rejected_cleanly']}; files lost {s['files_lost']}"
        )

    def write_part(self, path: Path) -> None:
        """This process's tallies as they are (a pytest-xdist worker's part of the session's)."""
        path.write_text(json.dumps({"faults": self.faults, "bad_inputs": self.bad_inputs, "lost": self.lost}))

    def merge(self, part: dict) -> None:
        """Add another worker's part (:meth:`write_part`): an entry counts as good if it was
        good where it ran."""
        for name, ok in part["faults"].items():
            self.faults[name] = self.faults.get(name, False) or ok
        for name, ok in part["bad_inputs"].items():
            self.bad_inputs[name] = self.bad_inputs.get(name, False) or ok
        self.lost.extend(part["lost"])

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.summary(), indent=2) + "\n")


LEDGER = FaultLedger()
