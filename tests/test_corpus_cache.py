"""The corpus through Snakemake's between-workflow cache (rule corpus, `cache:`):
a second clone with the same SNAKEMAKE_OUTPUT_CACHE takes the corpus from the cache,
with the server that served it gone."""

from __future__ import annotations

import pytest
from conftest import run_snakemake
from faults.runs import write_config
from faults.sources import http_server, sha256

pytestmark = pytest.mark.workflow

TEXT = ("To be, or not to be, that is the question.\n" * 400).encode()


def test_a_second_clone_reuses_the_cached_corpus_without_downloading(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    (served / "corpus.txt").write_bytes(TEXT)
    cache = tmp_path / "cache"
    cache.mkdir()
    env = {"SNAKEMAKE_OUTPUT_CACHE": str(cache)}
    first, second = tmp_path / "first", tmp_path / "second"
    with http_server(served) as base_url:
        corpus = {"source": "url", "url": f"{base_url}/corpus.txt", "sha256": sha256(TEXT), "timeout": 5}
        configfile = write_config(tmp_path / "config.yaml", {"corpus": corpus})
        run_snakemake(first, "--cores", "1", "data/corpus.txt", "--cache", "corpus",
                      configfile=configfile, env=env)  # fmt: skip
    assert (first / "data/corpus.txt").read_bytes() == TEXT
    assert any(cache.iterdir()), "nothing was stored in the cache"

    # the server is gone: the only way to the corpus is the cache
    two = run_snakemake(second, "--cores", "1", "data/corpus.txt", "--cache", "corpus",
                        configfile=configfile, env=env, check=False)  # fmt: skip
    output = two.stdout + two.stderr
    assert two.returncode == 0, output[-3000:]
    assert (second / "data/corpus.txt").read_bytes() == TEXT
    assert (second / "data/corpus.json").read_bytes() == (first / "data/corpus.json").read_bytes()
    assert "data/corpus.txt from cache" in output, output[-3000:]
    log = second / "results/logs/corpus.log"  # Snakemake creates it; the job never wrote to it
    assert not log.exists() or "corpus from" not in log.read_text(), "the corpus job ran instead of the cache"
