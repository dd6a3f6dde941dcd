"""Bad input: one clear line, never a traceback from inside MLX."""

import pytest

from mlx_specdec import speculative_generate
from mlx_specdec.errors import IncompatibleModelsError, SpecDecError
from mlx_specdec.generate import greedy_generate
from tests.mocks import TableLM


@pytest.fixture(scope="module")
def target():
    return TableLM(8, seed=0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"k": 0}, r"k \(draft tokens per round\) must be an integer >= 1, 'auto' or 'heuristic', got 0"),
        ({"k": -2}, r"got -2"),
        ({"k": 2.5}, r"got 2.5"),
        ({"temperature": -0.1}, r"temperature must be a number >= 0, got -0.1"),
        ({"temperature": 1.0, "top_p": 0.0}, r"top_p must be in \(0, 1\], got 0.0"),
        ({"temperature": 1.0, "top_p": 1.5}, r"top_p must be in \(0, 1\], got 1.5"),
        ({"temperature": 1.0, "top_k": 0}, r"top_k must be a positive integer or None, got 0"),
    ],
)
def test_bad_generation_parameters_raise_one_line_errors(target, kwargs, message):
    with pytest.raises(SpecDecError, match=message) as err:
        speculative_generate(target, target, [1, 2], 5, **kwargs)
    assert "\n" not in str(err.value)


def test_negative_max_tokens(target):
    with pytest.raises(SpecDecError, match="max_new_tokens must be an integer >= 0, got -1"):
        speculative_generate(target, target, [1], -1)
    with pytest.raises(SpecDecError, match="got -1"):
        greedy_generate(target, [1], -1)


def test_empty_prompt(target):
    with pytest.raises(SpecDecError, match="prompt is empty"):
        speculative_generate(target, target, [], 5)


def test_prompt_beyond_context_window():
    small = TableLM(8, seed=0)
    small.args.max_seq_len = 16
    with pytest.raises(SpecDecError, match="prompt has 20 tokens, beyond the model's context window of 16"):
        speculative_generate(small, small, [1] * 20, 1)
    with pytest.raises(SpecDecError, match=r"exceeds the context window of 16"):
        speculative_generate(small, small, [1] * 10, 10)


def test_token_id_outside_vocabulary(target):
    with pytest.raises(SpecDecError, match=r"prompt token id 8 is outside the vocabulary \[0, 8\)"):
        speculative_generate(target, target, [1, 8], 3)


def test_drafter_vocabulary_mismatch_is_refused(target):
    with pytest.raises(IncompatibleModelsError, match="drafter vocabulary size 9 differs from the target's 8"):
        speculative_generate(target, TableLM(9, seed=1), [1, 2], 3)


def test_drafter_of_the_wrong_type(target):
    with pytest.raises(TypeError, match="drafter must be a model or a Drafter object, got str"):
        speculative_generate(target, "models/storylm-1m", [1, 2], 3)


def test_unknown_strategy(target):
    with pytest.raises(SpecDecError, match="unknown state strategy 'paged'"):
        speculative_generate(target, target, [1, 2], 3, strategy="paged")
