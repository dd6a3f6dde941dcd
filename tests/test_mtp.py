"""The MTP head: two-ahead alignment, a frozen base, training and resume, and
self-speculation that is lossless and costs no extra trunk pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlx.core as mx
import mlx.optimizers as optim
import numpy as np
import pytest
from mlx.utils import tree_flatten, tree_unflatten

from mlx_specdec import mtp
from mlx_specdec.errors import IncompatibleModelsError, ModelLoadError, SpecDecError
from mlx_specdec.generate import (
    greedy_generate,
    speculative_generate,
    speculative_stream,
)
from mlx_specdec.models.storylm import StoryLMTrunk, build, preset
from mlx_specdec.mtp import (
    MTPConfig,
    MTPDrafter,
    MTPHead,
    hidden_states,
    load_head,
    mtp_loss,
    mtp_propose,
    mtp_rollout,
    weights_fingerprint,
)
from mlx_specdec.models.head_store import CURVES
from mlx_specdec.state import output_projection
from mlx_specdec.training import loop
from mlx_specdec.training.checkpoints import CKPT, read_checkpoint_meta
from mlx_specdec.training.mtp import MTPTrainConfig, make_train_step, train, write_plot
from tests.conftest import shipped

V = 320


def scaled_base(seed=1, scale=10.0):
    """A random tiny StoryLM with weights scaled up so its greedy output wanders
    between tokens instead of repeating one (a plain random init mostly repeats)."""
    base = build(preset("storylm-tiny", vocab_size=V), seed=seed)
    base.update(tree_unflatten([(k, v * scale) for k, v in tree_flatten(base.parameters()) if "norm" not in k]))
    mx.eval(base.parameters())
    return base


def echo_head(base):
    """A head whose every draft repeats its input token: on a base whose greedy
    output has runs of one token it is accepted inside runs and rejected at their
    ends, so rounds see full, partial and zero acceptance without any training."""
    head = MTPHead(base)
    D = head.config.dim
    module = head.layers[0]
    module.fuse.weight = mx.concatenate([mx.zeros((D, D)), mx.eye(D)], axis=1)
    for block in module.blocks:
        block.down_proj.weight = mx.zeros_like(block.down_proj.weight)
    return head


def prompt(seed, n=8):
    return np.random.default_rng(seed).integers(4, V, n).tolist()


PROMPTS = [prompt(1), prompt(2)]


@pytest.fixture(scope="module")
def base():
    return scaled_base()


def base_arrays(model):
    return {k: np.array(v) for k, v in tree_flatten(model.parameters())}


# ---------------------------------------------------------------------------
# Alignment: the head is scored against x_{t+2}
# ---------------------------------------------------------------------------


def one_hot_logits(targets, big=30.0):
    return mx.array(np.eye(V, dtype=np.float32)[targets] * big)


def test_mtp_loss_scores_two_ahead_and_punishes_one_ahead():
    rng = np.random.default_rng(0)
    ids = rng.integers(0, V, 40)
    while np.any(ids[1:] == ids[:-1]):  # x_{t+1} != x_{t+2} everywhere: the two shifts disagree
        ids = rng.integers(0, V, 40)
    T = len(ids)
    # Row t comes from (h_t, x_{t+1}); rows past T-3 have no target and are ignored.
    two_ahead = np.concatenate([ids[2:], ids[:1]])  # T-1 rows, last row junk
    one_ahead = ids[1:]
    good = mtp_loss(one_hot_logits(two_ahead), ids.tolist()).item()
    shifted = mtp_loss(one_hot_logits(one_ahead), ids.tolist()).item()
    assert good < 1e-6
    assert shifted > 25.0  # every row puts its mass on the wrong token
    # The same alignment batched, and at depth 2 the target is x_{t+3}.
    batch = mx.array(np.stack([ids, ids]))
    assert mtp_loss(mx.stack([one_hot_logits(two_ahead)] * 2), batch).item() < 1e-6
    three_ahead = np.concatenate([ids[3:], ids[:1]])  # T-2 rows
    assert mtp_loss(one_hot_logits(three_ahead), ids.tolist(), depth=2).item() < 1e-6
    assert mtp_loss(one_hot_logits(two_ahead[: T - 2]), ids.tolist(), depth=2).item() > 25.0


def test_mtp_loss_refuses_too_few_rows_or_tokens():
    with pytest.raises(SpecDecError, match="needs more than 2 tokens"):
        mtp_loss(mx.zeros((2, V)), [1, 2])
    with pytest.raises(SpecDecError, match="rows"):
        mtp_loss(mx.zeros((3, V)), list(range(10)))


def test_training_step_learns_the_token_two_ahead_and_leaves_the_base_untouched():
    """End to end: on a permutation cycle (x_{t+1} = perm[x_t]) the trained head's
    top-1 must be x_{t+2}. A head trained against x_{t+1} would echo its input
    token instead and score ~0 here."""
    base = scaled_base(seed=3)
    before = base_arrays(base)
    rng = np.random.default_rng(0)
    vocab = rng.choice(np.arange(4, V), 24, replace=False)
    succ = dict(zip(vocab, np.roll(vocab, -1)))

    def rows(n, T=24):
        out = np.empty((n, T), np.int32)
        out[:, 0] = rng.choice(vocab, n)
        for t in range(1, T):
            out[:, t] = [succ[x] for x in out[:, t - 1]]
        return out

    mx.random.seed(0)
    head = MTPHead(base, MTPConfig.for_base(base, depth=1))
    opt = optim.AdamW(learning_rate=1e-2)
    opt.init(head.trainable_parameters())
    step = make_train_step(head, opt, [1.0], grad_clip=1.0)
    losses = []
    for _ in range(60):
        loss, _ = step(mx.array(rows(16)))
        mx.eval(head.state, opt.state, loss)
        losses.append(loss.item())
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])

    x = mx.array(rows(8))
    logits = mtp_rollout(head, hidden_states(base, x), x, 1)[0]
    top = np.array(mx.argmax(logits, axis=-1))[:, :-1]  # row t, t = 0..T-3
    xs = np.array(x)
    assert (top == xs[:, 2:]).mean() > 0.9
    assert (top == xs[:, 1:-1]).mean() < 0.1
    # Frozen: not one bit of the base moved.
    after = base_arrays(base)
    assert all(np.array_equal(before[k], after[k]) for k in before)


# ---------------------------------------------------------------------------
# The head: shapes, frozen base, proposals
# ---------------------------------------------------------------------------


def test_head_parameters_exclude_every_base_weight(base):
    head = MTPHead(base)
    names = [k for k, _ in tree_flatten(head.trainable_parameters())]
    assert names and all(k.startswith("layers.0.") for k in names)
    assert [k for k, _ in tree_flatten(head.parameters())] == names
    base_ids = {id(v) for _, v in tree_flatten(base.parameters())}
    assert not base_ids & {id(v) for _, v in tree_flatten(head.parameters())}
    cfg = head.config
    D, H = cfg.dim, cfg.hidden_dim
    assert sum(v.size for _, v in tree_flatten(head.parameters())) == 2 * D * D + 3 * D * H + 4 * D
    assert head.base is base


def test_head_and_hidden_state_shapes(base):
    ids = mx.array(np.random.default_rng(0).integers(0, V, (3, 12)), dtype=mx.int32)
    h = hidden_states(base, ids)
    assert h.shape == (3, 12, 32)
    assert hidden_states(base, ids[0].tolist()).shape == (12, 32)
    # Hidden states come before the output projection: projecting them gives the logits.
    assert mx.allclose(output_projection(base)(h), base(ids), atol=1e-4)
    head = MTPHead(base, MTPConfig.for_base(base, n_modules=3))
    logits, features = head(h[:, :-1], ids[:, 1:])
    assert logits.shape == (3, 11, V) and features.shape == (3, 11, 32)
    rolled = mtp_rollout(head, h, ids, 3)
    assert [r.shape for r in rolled] == [(3, 11, V), (3, 10, V), (3, 9, V)]
    assert mtp_loss(rolled[0], ids).item() == pytest.approx(np.log(V), rel=0.5)


def test_mtp_propose_gives_the_base_next_token_then_the_head_token(base):
    head = MTPHead(base)
    ctx = PROMPTS[0]
    nxt, extra = mtp_propose(base, head, ctx)
    assert nxt == greedy_generate(base, ctx, 1)[0]
    logits, _ = head(hidden_states(base, ctx)[-1:], mx.array([nxt]))
    assert extra == mx.argmax(logits[0]).item()


# ---------------------------------------------------------------------------
# Self-speculation in the engine
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["cache", "recompute"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_mtp_self_speculation_equals_plain_greedy(base, strategy, depth):
    head = echo_head(base)
    rounds = []
    for p in PROMPTS:
        out, stats = speculative_generate(base, MTPDrafter(head), p, 40, k=depth, strategy=strategy)
        assert out == greedy_generate(base, p, 40)
        assert stats.generated == 40
        # The target's prefill keeps its hidden rows, so even the first round drafts.
        assert stats.drafted <= depth * stats.target_passes and stats.drafted > 0
        rounds += stats.accepted_per_round
    # The run went through every kind of round: rejected, partly and fully accepted.
    assert 0 in rounds and depth in rounds
    if depth > 1:
        assert any(0 < a < depth for a in rounds)


def leaky_echo_head(base, leak=0.5):
    """The echo head with some of the trunk state mixed in: its drafts are often
    accepted, and its distributions depend on which hidden row it is given."""
    head = echo_head(base)
    D = head.config.dim
    leak_w = leak * mx.random.normal((D, D), key=mx.random.key(11)) / D**0.5
    head.layers[0].fuse.weight = mx.concatenate([leak_w, mx.eye(D)], axis=1)
    return head


def check_drafts_from_a_fresh_trunk_pass(drafter, head, base, policy, ctx: list) -> list:
    """Wrap drafter.propose: every proposal's drafts (and, sampled, their distributions) must be what the
    head gives from a fresh trunk pass over `ctx` (the caller keeps it the committed context). Returns a
    one-item list counting the proposals checked."""
    checked, propose = [0], drafter.propose

    def checking_propose(k, policy_, key):
        ids, q = propose(k, policy_, key)
        if ids.size:
            state, token = hidden_states(base, ctx)[-2:-1], mx.array(ctx[-1:])
            for d in range(1, ids.size + 1):
                logits, state = head(state, token, depth=d)
                if policy.greedy:
                    assert ids[d - 1].item() == mx.argmax(logits[0]).item()
                else:
                    assert mx.allclose(q[d - 1], policy.probs(logits)[0], atol=1e-5)
                token = ids[d - 1 : d]  # the chain continues from the drafted token
            checked[0] += 1
        return ids, q

    drafter.propose = checking_propose
    return checked


@pytest.mark.parametrize("strategy", ["cache", "recompute"])
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_drafts_equal_the_recompute_reference_every_round(base, strategy, temperature):
    """Each round's drafts (and, sampled, their distributions) are what the head
    gives from a fresh trunk pass over the committed context: the hidden row the
    drafter keeps after each verdict is the right one."""
    from mlx_specdec.sampling import SamplingPolicy

    head = leaky_echo_head(base)
    drafter = MTPDrafter(head, max_depth=3)
    ctx = list(PROMPTS[1])
    checked = check_drafts_from_a_fresh_trunk_pass(drafter, head, base, SamplingPolicy(temperature), ctx)
    for emission in speculative_stream(base, drafter, PROMPTS[1], 40, k=3, strategy=strategy,
                                       temperature=temperature, seed=4):
        ctx += emission.ids
    accepted = [a for _, a in drafter.rounds]
    assert checked[0] >= 8
    assert max(accepted) >= 2 and 0 in accepted  # rows 0 and beyond were both exercised


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_pipelined_plain_steps_leave_the_head_on_the_row_of_the_step_that_made_each_token(base, monkeypatch,
                                                                                         temperature):
    """Rounds without drafts run as the plain loop's pipelined steps, where the step queued after a token
    replaces target_seq.hidden before the host reads it: after every commit the head's state is still the
    trunk row of the last token (checked against a fresh trunk pass), its drafts after a run of plain steps
    are what the head gives from there, and greedy output stays the target's."""
    import importlib

    from mlx_specdec.sampling import SamplingPolicy

    gen = importlib.import_module("mlx_specdec.generate")

    class Scripted:  # a k schedule with runs of plain steps between drafting rounds
        pattern = [0, 0, 0, 3, 0, 2, 0, 0, 0, 0, 3, 1]
        learns = True  # the loop then pays a drafter's catch-up before a round, as for auto
        wants_step_cost = False

        def __init__(self):
            self.i = -1

        def choose(self):
            self.i += 1
            return self.pattern[self.i % len(self.pattern)]

        def update(self, drafted, accepted, seconds, traced=False):
            pass

        def charge(self, seconds, tokens=0, budget=True):
            pass

        def finish(self):
            pass

    monkeypatch.setattr(importlib.import_module("mlx_specdec.schedules"), "for_pair", lambda *a, **kw: Scripted())
    head = leaky_echo_head(base)
    drafter = MTPDrafter(head, max_depth=3)
    ctx = list(PROMPTS[1])
    checked = check_drafts_from_a_fresh_trunk_pass(drafter, head, base, SamplingPolicy(temperature), ctx)
    commit, plain_commits = drafter.commit, 0

    def checking_commit(accepted, token, **rows):
        nonlocal plain_commits
        commit(accepted, token, **rows)
        if drafter._n_drafts == 0:  # a plain step: the state is the trunk's row at the last token before it
            assert mx.allclose(drafter._state, hidden_states(base, ctx)[-1:], atol=1e-4)
            plain_commits += 1

    drafter.commit = checking_commit
    stats = gen.SpecStats()
    for emission in gen.speculative_stream(base, drafter, PROMPTS[1], 48, k="auto", temperature=temperature,
                                           seed=4, stats=stats, strategy="cache"):
        ctx += emission.ids
    assert checked[0] >= 6 and plain_commits > stats.target_passes // 2
    if not temperature:
        assert ctx[len(PROMPTS[1]):] == greedy_generate(base, PROMPTS[1], 48)


@pytest.mark.parametrize("strategy", ["cache", "recompute"])
def test_self_speculation_costs_no_extra_trunk_pass(base, monkeypatch, strategy):
    calls = {"n": 0}
    trunk_call = StoryLMTrunk.__call__

    def counting(self, *args, **kwargs):
        calls["n"] += 1
        return trunk_call(self, *args, **kwargs)

    monkeypatch.setattr(StoryLMTrunk, "__call__", counting)
    drafter = MTPDrafter(echo_head(base), max_depth=2)
    after_prefill = {}
    prefill = drafter.prefill

    def noting_prefill(ids):
        after_prefill["n"] = calls["n"]  # the target has prefilled (bind, then target, then drafter)
        prefill(ids)

    drafter.prefill = noting_prefill
    _, stats = speculative_generate(base, drafter, PROMPTS[0], 40, k=2, strategy=strategy)
    assert stats.accepted > 0
    trunk_passes = calls["n"] - after_prefill["n"]
    assert trunk_passes == stats.target_passes == len(stats.accepted_per_round)


def test_sampled_self_speculation_is_seeded_and_exact_at_top_k_1(base):
    head = echo_head(base)
    p = PROMPTS[1]

    def run(seed, **kw):
        return speculative_generate(base, MTPDrafter(head), p, 30, k=2, temperature=0.9, seed=seed, **kw)

    a, sa = run(7)
    b, sb = run(7)
    assert a == b and sa.accepted_per_round == sb.accepted_per_round and len(a) == 30
    assert sa.drafted > 0
    assert any(run(s)[0] != a for s in (8, 9, 10))
    # top-k 1 makes sampling deterministic: it must then reproduce greedy decoding.
    assert run(3, top_k=1)[0] == greedy_generate(base, p, 30)


def test_sampled_drafts_come_with_their_distributions(base):
    from mlx_specdec.sampling import SamplingPolicy

    drafter = MTPDrafter(MTPHead(base), max_depth=3)
    policy = SamplingPolicy(temperature=1.0, top_p=0.9)
    drafter.bind(base, type("Seq", (), {"hidden": mx.zeros((2, 32))})())
    ids, q = drafter.propose(3, policy, mx.random.key(0))
    assert ids.size == 0 and q is None  # nothing to draft from before the first verification
    drafter.commit(1, 5)
    ids, q = drafter.propose(3, policy, mx.random.key(0))
    assert ids.shape == (3,) and q.shape == (3, V)
    assert np.allclose(np.array(q.sum(axis=-1)), 1.0, atol=1e-5)
    assert all(q[i, ids[i]].item() > 0 for i in range(3))
    assert drafter.propose(0, policy, mx.random.key(0))[0].size == 0


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_drafter_refuses_a_target_it_does_not_belong_to(base):
    other = scaled_base(seed=2)
    with pytest.raises(IncompatibleModelsError, match="load the head onto the target"):
        speculative_generate(other, MTPDrafter(MTPHead(base)), PROMPTS[0], 5)


def test_bad_head_config_and_depth_are_one_line_errors(base, capsys):
    with pytest.raises(SpecDecError, match="depth must be an integer >= 1"):
        MTPConfig.for_base(base, depth=0)
    with pytest.raises(SpecDecError, match="max_depth"):
        MTPDrafter(MTPHead(base), max_depth=0)
    from mlx_specdec.cli.mtp import main

    assert main(["train", "--base", "nowhere", "--max-steps", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: --max-steps must be >= 1, got 0"


# ---------------------------------------------------------------------------
# Training: checkpoints, resume after a kill, the saved head folder
# ---------------------------------------------------------------------------


def small_cfg(root, tiny_store, name, **kw) -> MTPTrainConfig:
    return MTPTrainConfig(base=str(tiny_store[0]), run_dir=str(root / name), max_steps=6, seq_len=32, batch_size=4,
                          train_stories=60, valid_stories=10, eval_rows=4, eval_every=3, ckpt_every=2, log_every=1,
                          warmup=2, lr=3e-3, quiet=True, **kw)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_store):
    """One uninterrupted 6-step run, and one killed during step 5 then resumed
    (which also writes the head folder)."""
    root = tmp_path_factory.mktemp("mtp-runs")
    full = train(small_cfg(root, tiny_store, "full"))
    real = loop.batch_rows

    def killed_at_step_5(n_rows, batch_size, step, seed):
        if step == 4:
            raise RuntimeError("simulated kill")
        return real(n_rows, batch_size, step, seed)

    mp = pytest.MonkeyPatch()
    mp.setattr(loop, "batch_rows", killed_at_step_5)
    try:
        with pytest.raises(RuntimeError, match="simulated kill"):
            train(small_cfg(root, tiny_store, "killed"))
    finally:
        mp.undo()
    ckpt_step = read_checkpoint_meta(root / "killed" / CKPT)["step"]
    out = root / "head"
    resumed = train(MTPTrainConfig(base=str(tiny_store[0]), run_dir=str(root / "killed"), resume=True,
                                       quiet=True, out=str(out)))
    return dict(root=root, full=full, resumed=resumed, ckpt_step=ckpt_step, out=out)


def test_resume_after_a_kill_matches_an_uninterrupted_run(runs):
    root, full, resumed = runs["root"], runs["full"], runs["resumed"]
    assert runs["ckpt_step"] == 4  # the checkpoint written before the kill survived it
    assert resumed["steps"] == full["steps"] == 6
    want, got = dict(tree_flatten(full["head"].parameters())), dict(tree_flatten(resumed["head"].parameters()))
    assert all(np.array_equal(np.array(want[k]), np.array(got[k])) for k in want)

    def curves(d):
        return [r.split(",")[:4] for r in (root / d / CURVES).read_text().splitlines()]

    assert curves("full") == curves("killed")  # the same losses, no duplicated rows after the resume
    assert len(curves("full")) == 1 + 6


def test_saved_head_sits_beside_its_base_with_fingerprints(runs, tiny_store):
    from mlx_specdec.models.store import load_store

    out = runs["out"]
    config = json.loads((out / "config.json").read_text())
    base_model, tok = load_store(tiny_store[0])
    assert config["base_tokenizer_fingerprint"] == tok.fingerprint
    assert config["base_weights_fingerprint"] == weights_fingerprint(base_model)
    assert len(config["base_weights_sha256"]) == 64
    assert config["architecture"]["depth"] == 3
    weights = mx.load(str(out / "head.safetensors"))
    assert {v.dtype for v in weights.values()} == {mx.float16}
    card = (out / "README.md").read_text()
    assert "two-ahead" in card and "wall time" in card and "machine" in card
    assert (out / "curves.csv").read_text().splitlines()[0].startswith("step,")
    head = load_head(out, base_model, tok)
    got = dict(tree_flatten(runs["resumed"]["head"].parameters()))
    for k, v in tree_flatten(head.parameters()):
        assert np.array_equal(np.array(v), np.array(got[k].astype(mx.float16).astype(mx.float32)))


def test_loading_a_head_onto_another_base_is_refused_in_one_line(runs, tiny_store, tmp_path):
    from mlx_specdec.models.store import load_store

    out = runs["out"]
    base_model, tok = load_store(tiny_store[0])
    other_model, _ = load_store(tiny_store[1])  # same tokenizer, other weights
    with pytest.raises(IncompatibleModelsError, match="trained on base weights") as err:
        load_head(out, other_model, tok)
    assert "\n" not in str(err.value)
    with pytest.raises(IncompatibleModelsError, match="tokenizer"):
        load_head(out, base_model, "0123456789abcdef")
    with pytest.raises(ModelLoadError, match="not a directory"):
        load_head(tmp_path / "absent", base_model, tok)
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    (broken / "head.safetensors").write_bytes(b"junk")
    with pytest.raises(ModelLoadError, match="corrupt"):
        load_head(broken, base_model, tok)
    (broken / "config.json").write_text("{")
    with pytest.raises(ModelLoadError, match="not valid JSON"):
        load_head(broken, base_model, tok)


def test_generate_with_a_head_prints_the_greedy_continuation(runs, tiny_store, capsys):
    from mlx_specdec.cli.generate import main
    from mlx_specdec.generate import encode_prompt
    from mlx_specdec.models.store import load_store

    base_model, tok = load_store(tiny_store[0])
    code = main(["--model", str(tiny_store[0]), "--draft-model", str(runs["out"]), "-k", "2",
                 "--prompt", "Once upon a time", "--max-tokens", "12", "--json"])
    assert code == 0
    record = json.loads(capsys.readouterr().out)
    want = greedy_generate(base_model, encode_prompt(tok, "Once upon a time"), 12, eos_id=tok.eos_id)
    assert record["ids"] == want and record["stats"]["generated"] == len(want)


def test_bench_reports_every_depth_and_checks_equality(runs, tiny_store):
    from bench.heads import bench

    base_model, tok, head = mtp.load_base_and_head(tiny_store[0], runs["out"])
    result = bench(base_model, tok, head, prompts=2, prompt_tokens=10, max_tokens=12, repeats=1, log=lambda m: None)
    assert [r["mode"] for r in result["rows"]] == ["plain greedy", "MTP depth 1", "MTP depth 2", "MTP depth 3"]
    assert all(r["identical"] for r in result["rows"])
    assert [len(r["by_depth"]) for r in result["rows"][1:]] == [1, 2, 3]


def test_resume_refuses_a_missing_checkpoint(tmp_path, tiny_store):
    with pytest.raises(SpecDecError, match="no checkpoint"):
        train(small_cfg(tmp_path, tiny_store, "none", resume=True))


# ---------------------------------------------------------------------------
# The shipped head
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_shipped_head_drafts_at_least_1_5_tokens_per_pass_and_stays_lossless():
    base_path = shipped("storylm-5m")
    head_path = Path(base_path).parent / "storylm-5m-mtp"
    if not (head_path / "head.safetensors").is_file():
        pytest.skip("shipped head storylm-5m-mtp is not in models/")
    from bench.heads import heldout_prompts

    base, tok, head = mtp.load_base_and_head(base_path, head_path)
    generated = passes = 0
    for p in heldout_prompts(tok, 3, 30):
        out, stats = speculative_generate(base, MTPDrafter(head, max_depth=1), p, 60, k=1, eos_id=tok.eos_id)
        assert out == greedy_generate(base, p, 60, eos_id=tok.eos_id)
        generated += stats.generated
        passes += stats.target_passes
    assert generated / passes >= 1.5


def test_plot_is_skipped_with_a_note_when_matplotlib_is_missing(runs, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` raise ImportError
    note = write_plot(runs["root"] / "full" / CURVES, tmp_path / "curves.png")
    assert "matplotlib is not installed" in note and not (tmp_path / "curves.png").exists()
