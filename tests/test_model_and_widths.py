"""The model, its parameter counts and the budget-matched widths."""

from pathlib import Path

import pytest
import torch
import yaml

from gatedrnn.core.model import CharModel, count_parameters, set_forget_bias
from gatedrnn.core.sizes import CELLS, READOUT_NORMS, model_parameters
from gatedrnn.core.vocabularies import vocabulary_size
from gatedrnn.core.widths import matched_width, resolve_width

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("readout_norm", READOUT_NORMS)
def test_closed_form_count_equals_pytorch_count(cell, layers, readout_norm):
    for hidden, vocab, embed in [(1, 3, 2), (17, 84, 128), (381, 100, 128)]:
        module = CharModel(vocab, cell, hidden, embed, layers, readout_norm)
        assert model_parameters(cell, hidden, vocab, embed, layers, readout_norm) == count_parameters(module)


def published_counts() -> dict[str, int]:
    """The study's three printed parameter counts, from the published-values file."""
    claims = yaml.safe_load((ROOT / "workflow" / "resources" / "published.yaml").read_text())["claims"]
    entries = [c for group in claims for c in group.get("claims", [group])]
    return {
        c["id"]: int(c["published"])
        for c in entries
        if c["id"].startswith("D3.") and c["id"].endswith(".params")
    }


def test_default_config_model_gives_every_published_count():
    """The default config's model (train.readout_norm, train.vocabulary, embed_dim, layers)
    has exactly the study's three counts, in closed form and as PyTorch modules; the
    budget GRU's width 381 comes out of the formula."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    train, reference = config["train"], config["grid"]["reference_width"]
    vocab = vocabulary_size(train["vocabulary"], corpus_vocab_size=84)  # printable: not the corpus's
    shape = (vocab, train["embed_dim"], train["layers"], train["readout_norm"])
    budget_width = matched_width("gru", reference, *shape)
    assert (vocab, budget_width) == (100, 381)
    models = {
        "D3.gru_vs_lstm.lstm.params": ("lstm", reference),
        "D3.gru_vs_lstm.gru_w325.params": ("gru", reference),
        "D3.gru_vs_lstm.gru_budget.params": ("gru", budget_width),
    }
    published = published_counts()
    assert set(published) == set(models)
    for claim, (cell, width) in models.items():
        module = CharModel(vocab, cell, width, train["embed_dim"], train["layers"], train["readout_norm"])
        assert model_parameters(cell, width, *shape) == count_parameters(module) == published[claim], claim


def test_old_model_widths_on_84_characters():
    # The workflow's model before issue 27 (no LayerNorm, the corpus's 84 characters):
    # GRU 381 (626,913 vs 629,636), RNN 686.
    assert model_parameters("lstm", 325, 84, readout_norm="none") == 629_636
    assert matched_width("gru", 325, 84, readout_norm="none") == 381
    assert model_parameters("gru", 381, 84, readout_norm="none") == 626_913
    assert matched_width("rnn", 325, 84, readout_norm="none") == 686


def test_layernorm_sits_between_the_recurrent_layer_and_the_read_out():
    torch.manual_seed(0)
    model = CharModel(11, "gru", 6, 5)
    tokens = torch.randint(0, 11, (2, 7))
    hidden = model.hidden_states(tokens)
    expected = model.head(torch.nn.functional.layer_norm(hidden, (6,), model.norm.weight, model.norm.bias))
    torch.testing.assert_close(model(tokens)[0], expected)
    plain = CharModel(11, "gru", 6, 5, readout_norm="none")
    assert not any(name.startswith("norm") for name in plain.state_dict())
    with pytest.raises(ValueError, match="unknown readout_norm 'batchnorm'"):
        CharModel(11, "gru", 6, 5, readout_norm="batchnorm")


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
