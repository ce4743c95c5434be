"""Cells as plug-ins (issue #49): the interface, the registry, the built-ins' written-out
steps against the modules that train them, and a cell outside the package (tests/cells.py)
through a model, its gates and the manual step check."""

import pytest
import torch
from torch import nn

from gatedrnn.analysis.gates import extract_gates, manual_step_check
from gatedrnn.core import builtin_cells
from gatedrnn.core.interface import Layers, RecurrentCell, layer_parameters
from gatedrnn.core.model import CharModel, count_parameters
from gatedrnn.core.registry import BUILTIN_CELLS, cell_name, cell_spec, load_cell_class, name_problem
from gatedrnn.core.sizes import model_parameters
from gatedrnn.core.widths import matched_width

JANET = "tests.cells:JANET"


def _copy_layer(cell: RecurrentCell, module: nn.Module) -> RecurrentCell:
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(module, f"{name}_l0"))
    return cell


@pytest.mark.parametrize("name", ["rnn", "gru", "lstm", "cho_gru", "gru_noreset"])
def test_a_builtin_step_is_the_module_that_trains_it(name):
    """PyTorch's modules (and GRUVariant) train the built-ins; their step, written out in
    the same layout, runs the same sequence to float32 rounding."""
    torch.manual_seed(0)
    cls = load_cell_class(name)
    module = cls.training_module(5, 7, 1)
    cell = _copy_layer(cls(5, 7), module)
    x = torch.randn(3, 11, 5)
    with torch.no_grad():
        expected, _ = module(x)
        got, _ = RecurrentCell.forward(cell, x)
    assert torch.allclose(got, expected, atol=1e-6)
    gates = cell.sequence_gates(x)
    assert set(gates) == set(cls.gates) | set(cls.states)


def test_the_builtins_declare_what_the_analyses_read():
    lstm, gru, rnn = (cell_spec(c) for c in ("lstm", "gru", "rnn"))
    assert lstm.keep_gate == "f" and lstm.couplings == (("i", "f"),) and lstm.states == ("c", "h")
    assert gru.keep_gate == "z" and gru.couplings == () and gru.label("z") == "update"
    assert rnn.keep_gate is None and rnn.gates == ()
    for name, spec in BUILTIN_CELLS.items():
        cls = load_cell_class(name)
        assert cls.declaration_problem() is None
        assert (cls.gates, cls.states, cls.keep_gate) == (spec.gates, spec.states, spec.keep_gate)


@pytest.mark.parametrize("cell", [*BUILTIN_CELLS, JANET])
def test_the_parameter_count_is_the_modules(cell):
    """Closed form where a cell declares one, counted from a layer otherwise (minGRU)."""
    model = CharModel(30, cell, 9, embed_dim=6, layers=2)
    assert model_parameters(cell, 9, 30, 6, 2) == count_parameters(model)


def test_a_plugin_without_a_closed_form_is_counted_from_its_module():
    assert builtin_cells.MinGRU.parameter_count(4, 3) is None
    assert layer_parameters(builtin_cells.MinGRU, 4, 3) == 2 * 3 * 4 + 2 * 3


def test_budget_widths_come_from_the_plugins_count():
    width = matched_width(JANET, 64, 40, embed_dim=16)
    budget = model_parameters("lstm", 64, 40, 16)
    assert model_parameters(JANET, width, 40, 16) <= budget < model_parameters(JANET, width + 1, 40, 16)
    # JANET has half the LSTM's gate blocks: a wider layer on the same budget
    assert width > 64


def test_cifg_ties_the_input_gate_to_the_forget_gate():
    """c' = f c + (1 - f) g: an LSTM whose input gate is 1 - f, with three blocks."""
    torch.manual_seed(1)
    cifg = builtin_cells.CIFG(4, 5)
    lstm = builtin_cells.LSTM(4, 5)
    H = 5
    with torch.no_grad():  # the LSTM's (i, f, g, o) rows from CIFG's (f, g, o)
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            f, g, o = getattr(cifg, name).chunk(3)
            getattr(lstm, name).copy_(torch.cat([torch.zeros_like(f), f, g, o]))
    x, state = torch.randn(2, 4), (torch.randn(2, H), torch.randn(2, H))
    (c_tied, h_tied), gates = cifg.step(x, state)
    (c_lstm, _), lstm_gates = lstm.step(x, state)
    i = 1 - gates["f"]
    assert torch.allclose(c_tied, gates["f"] * state[0] + i * gates["g"], atol=1e-6)
    assert torch.allclose(lstm_gates["f"], gates["f"]) and model_parameters("cifg", 5, 10) < model_parameters(
        "lstm", 5, 10
    )


@pytest.mark.parametrize("cell", [JANET, "cifg", "mingru", "cho_gru", "gru_noreset"])
def test_a_cell_read_through_its_step_has_its_gates_and_passes_the_step_check(cell):
    torch.manual_seed(0)
    model = CharModel(12, cell, 6, embed_dim=5, layers=2)
    tokens = torch.randint(0, 12, (3, 9))
    spec = cell_spec(cell)
    for layer in (0, 1):
        check = manual_step_check(model, tokens, layer)
        assert check["max_abs_diff"] < 1e-5 and check["units"] == 6
        gates = extract_gates(model, tokens, layer)
        assert set(spec.gates) | {"h"} <= set(gates)
        assert all(value.shape == (3, 9, 6) for value in gates.values())
    assert model.cell == cell_name(cell)
    assert (model.cell_path is None) == (cell in BUILTIN_CELLS)
    if cell == JANET:
        assert isinstance(model.rnn, Layers)


def test_the_step_check_sees_a_forward_that_is_not_the_step():
    """A plug-in's fast forward that disagrees with its step fails C1."""
    torch.manual_seed(0)
    model = CharModel(12, JANET, 6, embed_dim=5)
    tokens = torch.randint(0, 12, (2, 7))
    original = model.rnn.layers[0].from_state.weight.detach().clone()
    model.rnn.layers[0].forward = lambda x, state=None: (
        torch.zeros(x.shape[0], x.shape[1], 6),
        (torch.zeros(x.shape[0], 6),),
    )
    assert manual_step_check(model, tokens)["max_abs_diff"] > 1e-3
    assert torch.equal(model.rnn.layers[0].from_state.weight, original)


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("janet", "unknown cell 'janet': name a built-in"),
        ("tests.no_such_module:JANET", "module 'tests.no_such_module' does not import"),
        ("tests.cells:Missing", "module 'tests.cells' has no 'Missing'"),
        ("tests.cells:NotACell", "NotACell is not a cell"),
        ("tests.cells:LSTM", "is a built-in.s; rename the class"),
    ],
)
def test_a_cell_that_does_not_resolve_is_one_line(cell, message):
    with pytest.raises(ValueError, match=message) as err:
        load_cell_class(cell)
    assert "\n" not in str(err.value)


def test_a_name_needs_no_import():
    assert cell_name(JANET) == "janet" and cell_name("lstm") == "lstm"
    assert name_problem("tests.cells:Cell2") is not None  # digits cannot name files
