"""StoryLM: sizes, shapes, and the cache contract mlx-lm and our engine rely on."""

import mlx_specdec  # noqa: F401  (before mlx.core)
import mlx.core as mx
import pytest
from mlx_lm.generate import generate_step, speculative_generate_step
from mlx_lm.sample_utils import make_sampler

from mlx_specdec.errors import ModelLoadError, SpecDecError
from mlx_specdec.models.storylm import (
    PRESETS,
    StoryLM,
    StoryLMConfig,
    build,
    num_parameters,
    preset,
)

SMALL = StoryLMConfig(vocab_size=97, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_seq_len=64)
ATOL = 1e-4


def _ids(n, vocab=97, seed=0):
    return mx.random.randint(0, vocab, (1, n), key=mx.random.key(seed))


@pytest.fixture(scope="module")
def model():
    return build(SMALL, seed=1)


@pytest.mark.parametrize(
    "name, target", [("storylm-1m", 1.25e6), ("storylm-5m", 5.5e6), ("storylm-30m", 29e6)]
)
def test_preset_parameter_count_within_20_percent(name, target):
    cfg = PRESETS[name]
    assert cfg.vocab_size == 4096
    n = num_parameters(StoryLM(cfg))
    assert abs(n - target) / target <= 0.20, (name, n)
    # Tied embedding: one (V, dim) matrix, no separate lm_head.
    d, h, L, V = cfg.dim, cfg.hidden_dim, cfg.n_layers, cfg.vocab_size
    assert n == V * d + L * (4 * d * d + 3 * d * h + 2 * d) + d


def test_ladder_presets_grow_in_size():
    sizes = [num_parameters(StoryLM(PRESETS[n])) for n in ("storylm-1m", "storylm-5m", "storylm-30m")]
    assert sizes == sorted(sizes)


def test_config_round_trips_through_dict():
    cfg = preset("storylm-5m", vocab_size=300)
    assert StoryLMConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.vocab_size == 300 and cfg.dim == 256


def test_config_rejects_unknown_keys_and_bad_heads():
    with pytest.raises(ModelLoadError, match="bogus"):
        StoryLMConfig.from_dict({**SMALL.to_dict(), "bogus": 1})
    with pytest.raises(ModelLoadError, match="n_heads=5"):
        StoryLMConfig(dim=32, n_heads=5)
    with pytest.raises(SpecDecError, match="storylm-2m"):
        preset("storylm-2m")


def test_protocol_shapes_and_names(model):
    x = _ids(7)
    logits = model(x)
    assert logits.shape == (1, 7, SMALL.vocab_size)
    h = model.model(x)
    assert h.shape == (1, 7, SMALL.dim)
    assert mx.allclose(model.model.embed_tokens.as_linear(h), logits, atol=ATOL)
    assert model.model_type == "storylm" and model.args is not None
    assert len(model.layers) == SMALL.n_layers and model.layers is model.model.layers
    assert len(model.make_cache()) == SMALL.n_layers
    assert "lm_head" not in model.parameters()
    assert model(_ids(6, seed=2).reshape(2, 3)).shape == (2, 3, SMALL.vocab_size)


def test_initial_loss_is_near_uniform():
    m = build(preset("storylm-tiny", vocab_size=512), seed=0)
    x = _ids(65, vocab=512)
    logits = m(x[:, :-1])
    loss = mx.mean(mx.logsumexp(logits, -1) - mx.take_along_axis(logits, x[:, 1:, None], -1)[..., 0])
    assert abs(loss.item() - mx.log(mx.array(512.0)).item()) < 0.1


def test_one_token_cached_decoding_equals_full_recompute(model):
    x = _ids(20)
    full = model(x)
    cache = model.make_cache()
    rows = [model(x[:, :8], cache)]
    for t in range(8, 20):
        rows.append(model(x[:, t : t + 1], cache))
    assert cache[0].offset == 20
    assert mx.allclose(mx.concatenate(rows, axis=1), full, atol=ATOL)


def test_block_after_prefill_equals_full_recompute(model):
    # A verification pass: k+1 = 5 new queries against a non-empty cache must
    # each see the prefix plus the block tokens up to themselves, no further.
    x = _ids(17, seed=3)
    full = model(x)
    cache = model.make_cache()
    model(x[:, :12], cache)
    block = model(x[:, 12:17], cache)
    assert mx.allclose(block, full[:, 12:17], atol=ATOL)


def test_trim_then_refeed_gives_same_logits(model):
    x = _ids(16, seed=4)
    cache = model.make_cache()
    model(x[:, :10], cache)
    first = model(x[:, 10:16], cache)
    # Roll back 4 of the 6 block tokens, then feed different tokens, then the
    # original ones again: the rejected suffix must have left no trace.
    for c in cache:
        assert c.trim(4) == 4
    assert cache[0].offset == 12
    model(mx.array([[5, 6, 7]]), cache)
    for c in cache:
        c.trim(3)
    again = model(x[:, 12:16], cache)
    assert mx.allclose(again, first[:, 2:], atol=ATOL)
    assert mx.allclose(again, model(x)[:, 12:16], atol=ATOL)


def _argmax_loop(model, prompt, n):
    ids = list(prompt)
    for _ in range(n):
        ids.append(mx.argmax(model(mx.array([ids]))[0, -1]).item())
    return ids[len(prompt) :]


def test_mlx_lm_generate_step_matches_full_recompute_greedy(model):
    prompt = [3, 14, 15, 92, 65]
    expected = _argmax_loop(model, prompt, 12)
    got = [
        int(t)
        for t, _ in generate_step(mx.array(prompt), model, max_tokens=12, sampler=make_sampler(0.0))
    ]
    assert got == expected


def test_mlx_lm_speculative_generate_step_matches_target_greedy(model):
    draft = build(SMALL, seed=7)
    prompt = [3, 14, 15, 92, 65]
    expected = _argmax_loop(model, prompt, 15)
    got, from_draft = [], []
    for t, _, drafted in speculative_generate_step(
        mx.array(prompt), model, draft, num_draft_tokens=3, max_tokens=15, sampler=make_sampler(0.0)
    ):
        got.append(int(t))
        from_draft.append(drafted)
    assert got == expected
    # A target drafting for itself is accepted everywhere except the rounds'
    # own correction/bonus tokens.
    self_got = [
        (int(t), d)
        for t, _, d in speculative_generate_step(
            mx.array(prompt), model, model, num_draft_tokens=3, max_tokens=15, sampler=make_sampler(0.0)
        )
    ]
    assert [t for t, _ in self_got] == expected
    assert sum(d for _, d in self_got) >= 9


@pytest.mark.parametrize("strategy", ["cache", "compiled"])
@pytest.mark.parametrize("owed", [3, 37])
@pytest.mark.parametrize("drafted_first", [False, True])
def test_a_drafters_catch_up_leaves_it_where_feeding_every_token_would(model, strategy, owed, drafted_first):
    """After a run of plain steps (rounds without drafts queue the target's tokens unfed), catch_up feeds
    them in one pass; the drafter then holds the same state as one given the whole text: the same
    committed count, pending token and next-token logits. Before any round has drafted, that pass is the
    deferred prefill of the prompt and those tokens; after one, it feeds the queue."""
    from mlx_specdec.drafters import ModelDrafter
    from mlx_specdec.sampling import SamplingPolicy

    ids = _ids(8 + owed, seed=3)[0].tolist()
    prompt, plain_steps = ids[:8], ids[8:]
    policy = SamplingPolicy()  # greedy
    late = ModelDrafter(model, strategy)
    late.prefill(prompt)
    if drafted_first:  # a round of one draft, all rejected: the target's token follows the prompt
        late.propose(1, policy, None)
        late.commit(0, plain_steps[0])
        plain_steps = plain_steps[1:]
    for tid in plain_steps:  # as the loop's rounds without drafts do
        late.propose(0, policy, None)
        late.commit(0, tid)
    late.catch_up()
    fresh = ModelDrafter(model, strategy)
    fresh.prefill(ids)
    fresh.catch_up()
    assert (late.seq.committed, late.seq.pending.tolist()) == (fresh.seq.committed, fresh.seq.pending.tolist())
    assert mx.allclose(late.seq.extend(mx.array([], dtype=mx.int32))[-1],
                       fresh.seq.extend(mx.array([], dtype=mx.int32))[-1], atol=ATOL).item()
