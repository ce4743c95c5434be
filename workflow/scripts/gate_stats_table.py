"""Rules of gates.smk that read saved probe gates (gatedrnn.tables.gates): C2, C3, C5, D1, D2, D5.

``params.table`` names the table; every named output gets one CSV at full precision.
"""

from gatedrnn.scripting import run_logged
from gatedrnn.tables import gates as gate_tables


def unit_half_lives(probes):
    units = gate_tables.unit_gates_table(probes)
    return {"table": gate_tables.unit_half_lives_table(units), "units": units}


TABLES = {
    "lstm_gates": lambda probes: {"table": gate_tables.gate_table(probes)},
    "gru_gates": lambda probes: {"table": gate_tables.gate_table(probes)},
    "lstm_forget_units": lambda probes: {"table": gate_tables.forget_units_table(probes)},
    "lstm_forget_by_char": lambda probes: {"table": gate_tables.forget_by_char_table(probes)},
    "lstm_coupling": lambda probes: {
        "table": gate_tables.coupling_table(probes),
        "histogram": gate_tables.coupling_histogram_table(probes),
    },
    "unit_half_lives": unit_half_lives,
}


def main(log):
    probes = gate_tables.load_probe_gates(snakemake.input.gates)
    frames = TABLES[snakemake.params.table](probes)
    for name, frame in frames.items():
        frame.to_csv(snakemake.output[name], index=False, float_format=None)
        log(f"{snakemake.params.table}/{name} -> {snakemake.output[name]} ({len(frame)} rows)")
    log(frames["table"].to_string(index=False))


run_logged(snakemake.log[0], main)
