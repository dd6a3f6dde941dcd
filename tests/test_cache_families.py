"""Exactness on every mlx-lm cache family, on tiny random mlx-lm models.

Every architecture in `tests/archs.py` (each mlx-lm model whose cache is not
plain KVCache: sliding windows, chunked attention, recurrent / SSM /
delta-rule states, hybrids, CacheList) is checked against mlx-lm's own
greedy `generate_step`, generating well past every window:

* plain decoding and speculative greedy (k = 1, 4, 8, every rollback) give
  exactly mlx-lm's tokens;
* after every round, every layer's committed state equals target-only
  decoding's at the same boundary;
* replay and per-position capture saw every stateful layer (no silent
  fallback to a re-feed);
* mixed pairs (recurrent drafter for an attention target and back);
* the sampled loop keeps a hybrid target's distribution.
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest
from mlx_lm.models import cache as mlc

from mlx_specdec import greedy_generate, speculative_generate
from mlx_specdec.caches import DEFAULT_ROLLBACK, ROLLBACKS, SlidingKVCache, members
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import speculative_stream
from mlx_specdec.state import (make_sequence, model_context_window, model_name, model_vocab_size,
                               quantized_kv_strategy)
from tests import archs

# The sweeps run eagerly (tests/conftest.py: `eager`): the compiled functions in these models are mlx-lm's, and
# on an empty MLX kernel cache building them cost more than the tests. `test_compiled_spot_check` runs one
# architecture of each cache family compiled, against mlx-lm's greedy computed compiled too.
pytestmark = pytest.mark.eager

PROMPT = [5, 17, 33, 2, 9, 100, 41, 7, 8, 12, 200, 3]
NEW = 36  # prompt + NEW = 48 positions: six times the window of 8
NAMES = sorted(archs.ARCHS)


def strategy(name: str, rollback: str = "cache"):
    """The strategy under test: the *_qkv fixtures compare with generate_step(kv_bits=...,
    quantized_kv_start=...), which quantizes every KVCache once it holds that many rows;
    the engine does the same."""
    kw = archs.KNOBS.get(name, {}).get("oracle_kwargs", {})
    if kw.get("kv_bits") is None:
        return rollback
    return quantized_kv_strategy(rollback, kw["kv_bits"], kw["kv_group_size"], kw.get("quantized_kv_start", 0))


@pytest.fixture(scope="module")
def pairs():
    """name -> (target, drafter, mlx-lm's greedy continuation), built once."""
    built = {}

    def get(name):
        if name not in built:
            target = archs.build(name)
            drafter = archs.drafter_of(target)
            built[name] = (target, drafter, archs.oracle_greedy(target, PROMPT, NEW))
        return built[name]

    return get


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_plain_decoding_equals_mlx_lm(pairs, name):
    target, _, oracle = pairs(name)
    assert greedy_generate(target, PROMPT, NEW, strategy=strategy(name)) == oracle


# Where a rollback cannot rebuild from its log and re-feeds instead, every time,
# counted in `fallbacks` (never silently): kimi_k3's decoder layers take an
# opaque block-residual object, so they cannot be split by position (replay
# reaches the mixers inside them); deepseek_v41's layers change their LayerCache
# outside any module call that receives it.
REFEEDS = {("kimi_k3", "positions"), ("deepseek_v41", "replay"), ("deepseek_v41", "positions")}
OPAQUE_LAYERS = {name for name, _ in REFEEDS}


# The cache kinds a rollback rebuilds rather than trims (state.CacheSequence: a model with none of them rolls
# back by trimming rows whatever rollback is named, so one rollback covers it; the test checks the split).
REBUILT_KINDS = {"ArraysCache", "ChunkedKVCache", "LayerCache"}
STATEFUL = {name for name in NAMES if archs.EXPECTED_KINDS[name] & REBUILT_KINDS}
ROLLBACK_CASES = [(name, rollback) for name in NAMES
                  for rollback in (ROLLBACKS if name in STATEFUL else (DEFAULT_ROLLBACK,))]


@pytest.mark.slow
@pytest.mark.parametrize("name, rollback", ROLLBACK_CASES)
def test_speculative_greedy_equals_mlx_lm(pairs, name, rollback):
    from mlx_specdec.generate import SpecStats

    target, drafter, oracle = pairs(name)
    assert bool(make_sequence(target, strategy(name, rollback)).stateful) == (name in STATEFUL), name
    stats, rebuilds = SpecStats(), 0
    for k in (1, 4, 8):
        seqs = []
        stream = speculative_stream(target, drafter, PROMPT, NEW, k=k, strategy=strategy(name, rollback), stats=stats,
                                    on_commit=lambda t, d: seqs.append(t) if not seqs else None)
        out = [t for e in stream for t in e.ids]
        assert out == oracle, f"{name}, k={k}, {rollback}"
        assert seqs[0].fallbacks == (seqs[0].rebuilds if (name, rollback) in REFEEDS else 0)
        rebuilds += seqs[0].rebuilds
    # Speculation was really exercised: drafts were rejected along the way, and
    # stateful layers were rebuilt on the accepted boundary.
    assert 0 < stats.accepted < stats.drafted
    assert (rebuilds > 0) == bool(make_sequence(target, strategy(name, rollback)).stateful)


# One architecture a family: sliding window, quantized KV, chunked attention, CacheList, recurrent, hybrid.
COMPILED_SPOT_CHECK = ["gemma3_text", "llama_qkv", "llama4", "deepseek_v32", "mamba2", "qwen3_next"]


@pytest.mark.parametrize("name", COMPILED_SPOT_CHECK)
def test_compiled_spot_check(pairs, name):
    """As the sweep above, with `mx.compile` on (how users run it): mlx-lm's compiled functions in the model and
    ours in the loop give mlx-lm's compiled greedy, token for token."""
    target, drafter, _ = pairs(name)
    mx.enable_compile()
    try:
        oracle = archs.oracle_greedy(target, PROMPT, NEW)
        assert greedy_generate(target, PROMPT, NEW, strategy=strategy(name)) == oracle
        out, stats = speculative_generate(target, drafter, PROMPT, NEW, k=4, strategy=strategy(name))
    finally:
        mx.disable_compile()
    assert out == oracle, name
    assert 0 < stats.accepted < stats.drafted


def _visible(m) -> list[mx.array]:
    """What a cache member holds that future tokens can see, in temporal order."""
    if isinstance(m, mlc.ArraysCache):
        return [a for a in m.cache if a is not None]
    if isinstance(m, SlidingKVCache):  # keep=0 here: the buffer's last window - 1 rows
        keys, values = m.keys_and_values()
        keep = min(m.window - 1, m.offset)
        return [keys[..., keys.shape[2] - keep :, :], values[..., values.shape[2] - keep :, :]]
    if isinstance(m, mlc.RotatingKVCache):
        keep = min(m.max_size - 1, m.offset)
        keys, values = m._temporal_order(m.keys), m._temporal_order(m.values)
        return [keys[..., keys.shape[2] - keep :, :], values[..., values.shape[2] - keep :, :]]
    if isinstance(m, mlc.ChunkedKVCache):  # the next query sees its own chunk only
        keys, values = m.keys_and_values()
        first = (m.offset // m.chunk_size) * m.chunk_size - m.start_position
        assert first >= 0, "a row of the current chunk was dropped"
        return [keys[..., first:, :], values[..., first:, :]]
    if isinstance(m, (mlc.KVCache, mlc.QuantizedKVCache)):
        if m.keys is None:  # a layer that ignores its cache (nemotron_nas no-op attention)
            return []
        if isinstance(m.keys, (tuple, list)):  # quantized (packed, scales, biases): compare what attention reads
            return [mx.dequantize(*(a[..., : m.offset, :] for a in kv), group_size=m.group_size, bits=m.bits)
                    for kv in (m.keys, m.values)]
        return [m.keys[..., : m.offset, :], m.values[..., : m.offset, :]]
    return [v for v in vars(m).values() if isinstance(v, mx.array)]


# Every rollback on one architecture of each family; the default on all of them.
ALL_ROLLBACKS_ON = {"qwen3_next", "falcon_h1", "rwkv7", "gemma3_text", "llama4", "recurrent_gemma", "deepseek_v41"}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_committed_state_equals_target_only_decoding_after_every_round(pairs, name):
    """Each round's boundary: every layer of the speculative target equals mlx-lm's
    own cache after feeding the same committed tokens one at a time."""
    target, drafter, oracle = pairs(name)
    tokens = PROMPT + oracle
    reference = mlc.make_prompt_cache(target)
    fed = 0
    checked = 0

    def feed_to(n):
        nonlocal fed
        if fed == 0:
            target(mx.array(tokens[: len(PROMPT) - 1])[None], cache=reference)
            archs.after_call(target, reference)  # the *_qkv fixtures: quantized as generate_step does
            fed = len(PROMPT) - 1
        while fed < n:
            target(mx.array(tokens[fed : fed + 1])[None], cache=reference)
            archs.after_call(target, reference)
            fed += 1

    def check(seq, _drafter):
        nonlocal checked
        feed_to(seq.committed)
        for ours, ref in zip(seq.cache, reference):
            for a, b in zip(members(ours), members(ref)):
                for x, y in zip(_visible(a), _visible(b), strict=True):
                    assert x.shape == y.shape, f"{name}: {type(a).__name__} vs {type(b).__name__}"
                    assert mx.allclose(x, y, atol=1e-4, rtol=1e-3).item(), f"{name} after {seq.committed} tokens"
        checked += 1

    rollbacks = ROLLBACKS if name in ALL_ROLLBACKS_ON else ("cache",)
    for rollback in rollbacks:
        fed, reference = 0, mlc.make_prompt_cache(target)
        stream = speculative_stream(target, drafter, PROMPT, NEW, k=4, strategy=strategy(name, rollback),
                                    on_commit=check)
        assert [t for e in stream for t in e.ids] == oracle
    assert checked >= 5 * len(rollbacks)


def _built(name: str, cfg: dict, seed: int, like: str):
    model_cls, args_cls = archs._classes(cfg)
    mx.random.seed(seed)
    model = model_cls(args_cls.from_dict(cfg))
    archs._reinit(model, like, seed)
    mx.eval(model.parameters())
    object.__setattr__(model, "_arch_name", name)
    return model


def _plain_llama(seed: int, **overrides):
    """llama with every layer on a plain KVCache (the sliding fixture minus its windows)."""
    cfg = {k: v for k, v in archs.ARCHS["llama_sliding"].items() if k not in ("layer_types", "sliding_window")}
    return _built("llama", {**cfg, **overrides}, seed, like="llama_sliding")


def _model(name: str, seed: int):
    return _plain_llama(seed) if name == "llama" else archs.build(name, seed=seed)


MIXED = [
    ("llama", "mamba2"),  # a recurrent drafter for an attention target
    ("qwen3_next", "llama"),  # an attention drafter for a hybrid target
    ("gemma3_text", "lfm2"),  # a hybrid drafter for a sliding-window target
]


@pytest.mark.slow
@pytest.mark.parametrize("target_name, drafter_name", MIXED)
def test_mixed_pairs_equal_the_target_greedy(pairs, target_name, drafter_name):
    if target_name == "llama":
        target = _plain_llama(seed=0)
        oracle = archs.oracle_greedy(target, PROMPT, NEW)
    else:
        target, _, oracle = pairs(target_name)
    drafter = _model(drafter_name, seed=7)
    for rollback in ROLLBACKS:
        out, stats = speculative_generate(target, drafter, PROMPT, NEW, k=4, strategy=rollback)
        assert out == oracle, rollback
        assert stats.drafted > 0


def test_rollback_counters_and_strategy_names(pairs):
    target, drafter, oracle = pairs("qwen3_next")
    seq = make_sequence(target, "replay")
    assert len(seq.stateful) == sum(isinstance(c, mlc.ArraysCache) for c in mlc.make_prompt_cache(target))
    with pytest.raises(SpecDecError, match="unknown rollback"):
        from mlx_specdec.state import CacheSequence

        CacheSequence(target, "undo")
    with pytest.raises(SpecDecError, match="compiled strategy needs KVCache layers only; qwen3_next uses"):
        make_sequence(target, "compiled")


def test_recurrent_models_have_no_context_window_but_attention_ones_do(pairs):
    assert model_context_window(pairs("mamba2")[0]) is None
    assert model_name(pairs("mamba2")[0]) == "mamba2"


def test_unknown_cache_type_is_refused_by_name():
    target = _plain_llama(seed=0)

    class Mystery(mlc._BaseCache):
        pass

    target.make_cache = lambda: [Mystery() for _ in target.layers]
    try:
        with pytest.raises(SpecDecError, match="llama uses the cache type Mystery"):
            greedy_generate(target, PROMPT, 4)
    finally:
        del target.make_cache


def _four_token_lfm2(seed: int):
    """lfm2 (short convolutions + attention) with a 4-token vocabulary, so the
    exact joint distribution of three tokens has 64 cells."""
    return _built("lfm2", dict(archs.ARCHS["lfm2"], vocab_size=4), seed, like="lfm2")


@pytest.mark.slow
def test_sampled_loop_keeps_a_hybrid_targets_distribution():
    """Joint distribution of 3 sampled tokens from a hybrid (recurrent + attention)
    target, with a drafter that disagrees often: Pearson chi-square at the 0.001 level."""
    from tests.test_distribution import chi_square_test

    target, drafter = _four_token_lfm2(seed=0), _four_token_lfm2(seed=9)
    prompt = [1, 2, 3]

    def probs(ctx):
        logits = target(mx.array(ctx)[None])[0, -1]
        return np.array(mx.softmax(logits.astype(mx.float32)))

    joint = {}
    p1 = probs(prompt)
    for a in range(4):
        p2 = probs(prompt + [a])
        for b in range(4):
            p3 = probs(prompt + [a, b])
            for c in range(4):
                joint[(a, b, c)] = p1[a] * p2[b] * p3[c]
    n, samples, accepted, drafted = 1200, [], 0, 0
    for seed in range(n):
        out, stats = speculative_generate(target, drafter, prompt, 3, k=2, temperature=1.0, seed=seed)
        samples.append(out)
        accepted, drafted = accepted + stats.accepted, drafted + stats.drafted
    stat, critical = chi_square_test(samples, joint)
    assert stat < critical
    assert 0 < accepted < drafted


@pytest.mark.slow
def test_quantized_kv_cache_rolls_back_exactly():
    """QuantizedKVCache (what mlx-lm's --kv-bits makes): greedy equals mlx-lm's
    greedy over the same quantized cache, for every rollback and k."""
    target = _plain_llama(seed=0, num_attention_heads=2, num_key_value_heads=1)  # head_dim 32: one group
    target.make_cache = lambda: [mlc.QuantizedKVCache(group_size=32, bits=8) for _ in target.layers]
    drafter = archs.build("mamba2", seed=3)
    oracle = archs.oracle_greedy(target, PROMPT, NEW)
    plain_cache = mlc.make_prompt_cache(target)
    assert isinstance(plain_cache[0], mlc.QuantizedKVCache)
    assert greedy_generate(target, PROMPT, NEW) == oracle
    for rollback in ROLLBACKS:
        for k in (1, 4, 8):
            out, stats = speculative_generate(target, drafter, PROMPT, NEW, k=k, strategy=rollback)
            assert out == oracle, (rollback, k)


def test_the_architecture_table_is_rendered_from_these_fixtures():
    """docs/architectures.md and the README's family table are what
    `python scripts/arch_table.py` writes today."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("arch_table", root / "scripts" / "arch_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    assert (root / "docs" / "architectures.md").read_text() == table.render()
    readme = (root / "README.md").read_text()
    assert table.render_readme(readme) == readme


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_vocabulary_and_name_are_read_through_wrappers(pairs, name):
    """Wrapper models (gemma3, lfm2-vl, mistral3, ... with a nested text_config) get the
    same vocabulary check and the same architecture name in messages as plain ones."""
    target, _, _ = pairs(name)
    logits = target(mx.array([PROMPT]))
    assert model_vocab_size(target) == logits.shape[-1]
    assert model_name(target) == archs.ARCHS[name]["model_type"]


def _qwen3(seed: int):
    """qwen3 has no make_cache of its own, so mlx-lm's max_kv_size bounds it."""
    cfg = dict(model_type="qwen3", hidden_size=64, num_hidden_layers=2, intermediate_size=128,
               num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=256, rms_norm_eps=1e-6,
               rope_theta=10000.0, tie_word_embeddings=False, max_position_embeddings=4096)
    return _built("qwen3", cfg, seed, like="llama_sliding")


@pytest.mark.slow
@pytest.mark.parametrize("prompt_len, bound", [(5, 10), (30, 6), (30, 16)])
def test_max_kv_size_bounded_cache_equals_mlx_lm(prompt_len, bound):
    """mlx-lm's --max-kv-size: 4 sink rows plus a ring (RotatingKVCache keep=4). Its
    prefill and its one-token steps show a query different keys; the engine's
    SlidingKVCache shows each query what mlx-lm would, so every rollback and k
    gives mlx-lm's bounded-cache greedy, prompts shorter and longer than the bound."""
    from mlx_specdec.state import cache_strategy

    target, drafter = _qwen3(0), archs.build("mamba2", seed=3)
    prompt = [(7 * i + 3) % 250 + 1 for i in range(prompt_len)]
    oracle = archs.oracle_greedy(target, prompt, NEW, max_kv_size=bound)
    assert oracle != archs.oracle_greedy(target, prompt, NEW)  # the bound changes the text
    assert greedy_generate(target, prompt, NEW, strategy=cache_strategy(max_kv_size=bound)) == oracle
    for rollback in ROLLBACKS:
        for k in (1, 4, 8):
            out, _ = speculative_generate(target, drafter, prompt, NEW, k=k,
                                          strategy=cache_strategy(rollback, max_kv_size=bound))
            assert out == oracle, (rollback, k)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gemma3_text", "plamo3", "gpt_oss", "recurrent_gemma"])
def test_sliding_windows_stay_exact_when_old_rows_are_dropped_often(pairs, name, monkeypatch):
    """SlidingKVCache drops rows no query can see in whole steps (256 rows); with a
    4-row step the drop runs every few tokens, between and inside rounds' reach."""
    monkeypatch.setattr(SlidingKVCache, "step", 4)
    target, drafter, oracle = pairs(name)
    for k in (1, 4, 8):
        out, _ = speculative_generate(target, drafter, PROMPT, NEW, k=k, strategy=strategy(name))
        assert out == oracle, k


@pytest.mark.parametrize("rollback", ROLLBACKS)
def test_a_block_as_long_as_the_head_count_is_exact(pairs, rollback):
    """rwkv7 has 4 heads: a 4-token pass (k = 3) makes its per-head activations (1, 4, 4, D), whose position
    axis no shape rule can tell from a mask's. Replay once cut them along the heads (a crash, or wrong state
    where the shapes broadcast); such a call is now rebuilt by the call around it or a re-feed, exactly."""
    target, drafter, oracle = pairs("rwkv7")
    out, stats = speculative_generate(target, drafter, PROMPT, NEW, k=3, strategy=strategy("rwkv7", rollback))
    assert out == oracle
    assert 0 < stats.accepted < stats.drafted
