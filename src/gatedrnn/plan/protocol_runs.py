"""The runs of the protocol stage (`protocol`): the small corpus, the confirmation and
round two (:mod:`gatedrnn.plan.round_two`), as a part of :class:`gatedrnn.plan.Plan`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property

import pandas as pd

from gatedrnn.plan.paths import DATASETS, Run, dataset_files, run_files
from gatedrnn.plan.round_two import (
    possible_round_two_points,
    round_two_datasets,
    round_two_enabled,
    round_two_overrides,
    round_two_points,
)


class ProtocolRuns:
    """What the protocol stage trains (a mixin of Plan: it reads ``config``,
    ``corpus_size_points``, ``sweep_points``, ``sweep_models`` and ``runs``)."""

    config: Mapping

    @property
    def protocol_enabled(self) -> bool:
        return bool(self.config.get("protocol", {}).get("enabled"))

    @property
    def corpus_size_runs(self) -> tuple[Run, ...]:
        """Every model of the corpus-size axis: point, then model, then seed."""
        if not self.corpus_size_points:
            return ()
        seeds = self.config["protocol"]["small_corpus"]["seeds"]
        return tuple(
            run
            for point in self.corpus_size_points
            for run in self.runs(self.sweep_models, point["regime"], seeds)
        )

    def corpus_size_files(self, name: str) -> list[str]:
        """One file of every model of the corpus-size axis."""
        return run_files(self.corpus_size_runs, name)

    def confirmation_runs(self, regimes: Iterable[str]) -> tuple[Run, ...]:
        """The regime sweep's two models under each of ``regimes`` (the front's and those near it)
        at every seed of ``protocol.confirm.seeds``: regime, then model, then seed."""
        seeds = self.config["protocol"]["confirm"]["seeds"]
        return tuple(run for regime in regimes for run in self.runs(self.sweep_models, regime, seeds))

    def confirmation_points(self, regimes: Iterable[str]) -> list[dict]:
        """The sweep points (either corpus) of ``regimes``, in the order given."""
        by_name = {p["regime"]: p for p in (*self.sweep_points, *self.corpus_size_points)}
        unknown = [r for r in regimes if r not in by_name]
        if unknown:
            raise ValueError(f"the scoreboard names {unknown}, which are not points of either sweep")
        return [by_name[r] for r in regimes]

    # ------------------------------------------------------------------- round two

    @property
    def round_two_enabled(self) -> bool:
        return round_two_enabled(self.config)

    @cached_property
    def round_two_regimes(self) -> dict[str, dict]:
        """Every regime round two could train (whatever the front), as overrides of `train`."""
        train = self.config["train"]
        return {p["regime"]: round_two_overrides(p, train) for p in possible_round_two_points(self.config)}

    def round_two_points(self, front: pd.DataFrame) -> pd.DataFrame:
        """The points round two trains after round one's ``front`` (protocol_front.csv)."""
        return round_two_points(front, self.config)

    def round_two_runs(self, regimes: Iterable[str]) -> tuple[Run, ...]:
        """The regime sweep's two models under each round-two regime of ``regimes`` at every
        seed of ``protocol.round_two.seeds``: regime, then model, then seed."""
        seeds = self.config["protocol"]["round_two"]["seeds"]
        return tuple(run for regime in regimes for run in self.runs(self.sweep_models, regime, seeds))

    @property
    def datasets(self) -> dict[str, dict[str, str]]:
        """Every text a regime may train on: {dataset: {corpus, provenance}}."""
        names = [*DATASETS, *round_two_datasets(self.config)]
        return {name: dataset_files(name) for name in names}
