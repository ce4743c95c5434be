"""gatedrnn.numerics: the pinned instruction set of the CPU kernels, set before torch starts.

What torch and MKL report in a fresh process (torch.backends.cpu.get_cpu_capability(),
MKL's own CNR getter) is the independent reference for what the pin did."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gatedrnn import numerics

SRC = os.path.join(os.path.dirname(__file__), "..", "src")


def fresh_in_force(environ: dict) -> dict:
    """in_force() of a fresh Python process run under ``environ``."""
    code = "import json; from gatedrnn.numerics import in_force; print(json.dumps(in_force()))"
    env = {**environ, "PYTHONPATH": os.path.abspath(SRC)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def clean_environment() -> dict:
    return {k: v for k, v in os.environ.items() if k not in (*numerics.VARIABLES, "LD_PRELOAD")}


def test_every_setting_owns_every_variable():
    for name in numerics.SETTINGS:
        environment = numerics.environment_for(name)
        assert set(environment) == set(numerics.VARIABLES)
    assert all(value is None for value in numerics.environment_for("native").values())
    portable = numerics.environment_for("portable")
    assert portable["MKL_CBWR"] == "COMPATIBLE,STRICT"
    # oneDNN at AVX: its AVX2 LSTM kernels differ on an emulated CPU (gatedrnn.numerics)
    assert portable["ONEDNN_MAX_CPU_ISA"] == portable["DNNL_MAX_CPU_ISA"] == "AVX"
    # the default: the same as portable but MKL's AVX2 branch, its vendor check answered
    assert numerics.DEFAULT == "portable_avx2" and numerics.DEFAULT in numerics.NEEDS_VENDOR_SHIM
    assert numerics.environment_for("portable_avx2") == portable | {"MKL_CBWR": "AVX2,STRICT"}


def test_unknown_setting_names_the_choices():
    choices = "portable_avx2, portable, avx2, avx512, native"
    with pytest.raises(ValueError, match=f"numerics.cpu_isa is 'avx3'.*{choices}"):
        numerics.environment_for("avx3")


def test_config_wins_over_the_shell():
    shell = {"MKL_CBWR": "AVX512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE", "HOME": "/home/u"}
    before = numerics.pin("avx2", shell)
    assert before["MKL_CBWR"] == "AVX512"
    assert shell == {
        "HOME": "/home/u",
        "ATEN_CPU_CAPABILITY": "avx2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "DNNL_MAX_CPU_ISA": "AVX2",
        "MKL_CBWR": "AVX2,STRICT",
    }
    numerics.pin("native", shell)  # native removes what the shell set: the libraries pick
    assert shell == {"HOME": "/home/u"}


def test_the_vendor_shim_joins_ld_preload_beside_the_shells_own(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    shell = {"LD_PRELOAD": "/opt/libjemalloc.so", "HOME": "/home/u"}
    numerics.pin("portable_avx2", shell)
    shim, kept = shell["LD_PRELOAD"].split(" ")
    assert kept == "/opt/libjemalloc.so" and shim == str(numerics.vendor_shim())
    assert Path(shim).parent == tmp_path / "gatedrnn" and Path(shim).is_file()
    numerics.pin("portable_avx2", shell)  # pinned twice: the shim once
    assert shell["LD_PRELOAD"] == f"{shim} /opt/libjemalloc.so"
    numerics.pin("portable", shell)  # another setting takes the shim out, keeps the rest
    assert shell["LD_PRELOAD"] == "/opt/libjemalloc.so"
    alone = {"LD_PRELOAD": shim}
    numerics.pin("native", alone)
    assert "LD_PRELOAD" not in alone


def test_a_missing_or_failing_compiler_is_one_line_naming_the_way_out(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", "false")  # a compiler that fails
    refused = "could not build MKL's vendor shim.*numerics.cpu_isa: portable"
    with pytest.raises(numerics.NumericsMismatch, match=refused):
        numerics.vendor_shim()
    monkeypatch.delenv("CC")
    monkeypatch.setenv("PATH", str(tmp_path))  # no cc, no gcc
    with pytest.raises(numerics.NumericsMismatch, match="needs a C compiler.*apt-get install gcc"):
        numerics.vendor_shim()
    assert not list((tmp_path / "cache").rglob("*.so")), "no half-built library is left"


def test_pin_refuses_once_torch_runs_in_this_process(monkeypatch):
    import torch  # noqa: F401  (the process has its kernels chosen)

    for name in numerics.VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(numerics.NumericsMismatch, match="before importing torch"):
        numerics.pin_this_process("avx2")


@pytest.mark.parametrize(
    ("setting", "branch"), [("portable", "COMPATIBLE,STRICT"), ("portable_avx2", "AVX2,STRICT")]
)
def test_pinned_process_dispatches_as_asked(setting, branch):
    environ = clean_environment()
    numerics.pin(setting, environ)
    found = fresh_in_force(environ)
    assert found["torch_cpu_capability"] == "AVX2"  # torch's own report, on any AVX2 CPU
    if found["mkl_branch"] is not None:  # MKL's own getter
        assert found["mkl_branch"] == branch
    assert numerics.mismatches(setting, found) == []
    assert found["environment"]["MKL_CBWR"] == branch
    assert found["mkl_vendor_shim"] == (setting == "portable_avx2")


def test_mkl_asks_its_vendor_through_the_symbol_the_shim_answers(tmp_path):
    """The independent check that the shim is what MKL consults: a library that answers
    "not Intel" instead, preloaded, turns MKL's AVX2 branch into AUTO on this CPU too, as
    MKL documents for other vendors (and a real AMD EPYC showed: bench/README.md)."""
    source = tmp_path / "not_intel.c"
    source.write_text(numerics.VENDOR_SHIM_SOURCE.replace("return 1;", "return 0;"))
    library = tmp_path / "not_intel.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    environ = clean_environment()
    numerics.pin("portable", environ)
    environ |= {"MKL_CBWR": "AVX2,STRICT", "LD_PRELOAD": str(library)}  # portable_avx2, shim swapped
    found = fresh_in_force(environ)
    if found["mkl_branch"] is None:
        pytest.skip("this torch build has no MKL whose branch can be read")
    assert found["mkl_branch"] == "AUTO,STRICT"
    problems = numerics.mismatches("portable_avx2", found)
    assert problems == [
        "MKL runs its AUTO,STRICT branch, not AVX2,STRICT (MKL's vendor check was not answered "
        "by the vendor shim: run the job through the workflow, which preloads it)"
    ]


def test_unpinned_process_is_refused_naming_each_library():
    found = fresh_in_force(clean_environment())
    problems = numerics.mismatches("portable", {"cpu_isa": "portable", **found})
    assert any("MKL_CBWR=None" in p for p in problems)
    assert any("ATEN_CPU_CAPABILITY=None" in p for p in problems)
    if found["mkl_branch"] is not None:
        assert any("MKL runs its OFF branch" in p for p in problems)
    assert numerics.mismatches("native", found) == []


def test_check_in_force_raises_here_unless_the_process_was_pinned(monkeypatch):
    for name in numerics.VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(numerics.NumericsMismatch, match="numerics.cpu_isa avx2 is not in force"):
        numerics.check_in_force("avx2")
    # a GPU's kernels are not the CPU libraries': recorded, never refused
    assert numerics.check_in_force("avx2", device="cuda")["device"] == "cuda"
    assert numerics.check_in_force("native")["cpu_isa"] == "native"


def test_the_workflows_pin_sets_what_its_jobs_inherit(monkeypatch):
    import torch  # noqa: F401  (Snakemake's own process may have torch: its jobs start afresh)

    for name in (*numerics.VARIABLES, "LD_PRELOAD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_CBWR", "AVX512")
    numerics.pin("portable")
    assert os.environ["MKL_CBWR"] == "COMPATIBLE,STRICT"
    assert fresh_in_force(dict(os.environ))["torch_cpu_capability"] == "AVX2"
