"""The model, its parameter counts and the budget-matched widths."""

import pytest
import torch

from gatedrnn.core.model import CharModel, count_parameters, set_forget_bias
from gatedrnn.core.sizes import CELLS, model_parameters
from gatedrnn.core.widths import matched_width, resolve_width


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("layers", [1, 2])
def test_closed_form_count_equals_pytorch_count(cell, layers):
    for hidden, vocab, embed in [(1, 3, 2), (17, 84, 128), (381, 84, 128)]:
        module = CharModel(vocab, cell, hidden, embed, layers)
        assert model_parameters(cell, hidden, vocab, embed, layers) == count_parameters(module)


def test_study_widths_on_84_characters():
    # The spec's figures for 84 characters: GRU 381 (626,913 vs 629,636), RNN 686.
    assert model_parameters("lstm", 325, 84) == 629_636
    assert matched_width("gru", 325, 84) == 381
    assert model_parameters("gru", 381, 84) == 626_913
    assert matched_width("rnn", 325, 84) == 686


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("vocab", [10, 65, 84, 200])
def test_matched_width_is_the_largest_within_budget(cell, vocab):
    budget = count_parameters(CharModel(vocab, "lstm", 64, 16))
    width = matched_width(cell, 64, vocab, embed_dim=16)
    # brute force over real modules: width fits, width + 1 does not
    assert count_parameters(CharModel(vocab, cell, width, 16)) <= budget
    assert count_parameters(CharModel(vocab, cell, width + 1, 16)) > budget


def test_width_tokens():
    assert resolve_width("w325", "gru", 84) == 325
    assert resolve_width("budget325", "gru", 84) == 381
    with pytest.raises(ValueError, match="neither"):
        resolve_width("325", "gru", 84)


def test_unknown_cell_is_refused():
    with pytest.raises(ValueError, match="unknown cell 'transformer'"):
        CharModel(10, "transformer", 8)
    with pytest.raises(ValueError, match="unknown cell"):
        model_parameters("lstm2", 8, 10)


def test_forward_shapes_and_gate_order():
    model = CharModel(11, "lstm", 6, 5)
    logits, (h, c) = model(torch.zeros(3, 7, dtype=torch.long))
    assert logits.shape == (3, 7, 11) and h.shape == (1, 3, 6) and c.shape == (1, 3, 6)
    set_forget_bias(model, 3.0)
    # PyTorch's LSTM chunks are (i, f, g, o): the forget slice is rows H..2H
    assert torch.all(model.rnn.bias_ih_l0[6:12] == 3.0)
    assert torch.all(model.rnn.bias_hh_l0[6:12] == 0.0)
    with pytest.raises(ValueError, match="LSTM only"):
        set_forget_bias(CharModel(11, "gru", 6, 5), 1.0)
