"""Rules of gates.smk that read saved probe gates (gatedrnn.tables.gates): C2, C3, C5, D1, D2, D5.

``params.tables`` maps each named output to the function of :mod:`gatedrnn.tables.gates`
that computes it, in order; a function takes the probe gates, or, where its first
parameter is named after an earlier output (``unit_half_lives_table(units)``), that
output's table. Every output gets one CSV at full precision.
"""

import inspect

from gatedrnn.scripting import run_logged
from gatedrnn.tables import gates as gate_tables


def main(log):
    probes = gate_tables.load_probe_gates(snakemake.input.gates)
    frames = {}
    for name, function_name in snakemake.params.tables.items():
        function = getattr(gate_tables, function_name)
        source = next(iter(inspect.signature(function).parameters))
        frames[name] = function(frames[source] if source in frames else probes)
    for name, frame in frames.items():
        frame.to_csv(snakemake.output[name], index=False, float_format=None)
        log(f"{snakemake.rule}/{name} -> {snakemake.output[name]} ({len(frame)} rows)")
    log(frames["table"].to_string(index=False))


run_logged(snakemake.log[0], main)
