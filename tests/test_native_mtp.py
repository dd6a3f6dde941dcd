"""Native MTP: the MTP layers real checkpoints ship, extracted and attached to an mlx-lm base.

Every checkpoint here is a tiny random one in its family's Hugging Face layout (tests/native_mtp_fixtures.py),
built offline: nothing real is downloaded. DeepSeek-V3's fixture needs 61 trunk layers (mlx-lm's sanitize
drops "model.layers.61.*" by that literal name), so its end-to-end tests are marked slow.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from mlx_specdec import speculative_generate
from mlx_specdec.convert import convert_mtp_only
from mlx_specdec.drafters import NativeMTPDrafter
from mlx_specdec.errors import IncompatibleModelsError, MissingMTPError, MTPShapeError, UnknownMTPFamilyError
from mlx_specdec.generate import speculative_stream
from mlx_specdec.models.mtp_head import hidden_states
from mlx_specdec.models.native_mtp import load_native_head, reference_drafts
from tests.native_mtp_fixtures import FUSION_NAMES, MTP_SHARD, SHARDS, mtp_tensor_names, write_checkpoint

pytestmark = pytest.mark.eager  # mlx-lm's architectures, run with mx.compile off (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]
# Fixture seeds whose heads get drafts accepted, fully in some rounds (a random head mostly misses).
SEEDS = {"deepseek_v3": 1, "deepseek_v32": 2, "glm4_moe": 2, "glm4_moe_lite": 0, "mimo": 4, "qwen3_next": 4,
         "qwen3_5": 3, "qwen3_5_moe": 4}
FAST = ["deepseek_v32", "glm4_moe", "glm4_moe_lite", "mimo", "qwen3_next", "qwen3_5", "qwen3_5_moe"]
FAMILIES = FAST + [pytest.param("deepseek_v3", marks=pytest.mark.slow)]
PROMPT = [5, 17, 33, 2, 99, 140, 7]
N_NEW = 24


def oracle_greedy(model, prompt, n):
    """mlx-lm's own greedy continuation (generate_step with an argmax sampler)."""
    from mlx_lm.generate import generate_step

    steps = generate_step(mx.array(prompt, dtype=mx.int32), model, max_tokens=n, sampler=lambda x: mx.argmax(x, -1))
    return [int(t) for t, _ in steps]


class Setup:
    def __init__(self, root: Path, family: str):
        from mlx_lm.utils import load as mlx_lm_load

        self.family = family
        self.src = write_checkpoint(family, root / family, seed=SEEDS[family])
        self.head_dir = convert_mtp_only(str(self.src), root / f"{family}-mtp", dtype="float32")
        self.base, self.tokenizer = mlx_lm_load(str(self.src))  # mlx-lm's loader, MTP tensors in the folder
        self.head = load_native_head(self.head_dir, self.base, self.tokenizer)

    def drafter(self, depth=None):
        return NativeMTPDrafter(self.head, self.base, max_depth=depth)


_SETUPS = {}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("native_mtp")


@pytest.fixture
def setup(root, request):
    family = request.param
    if family not in _SETUPS:
        _SETUPS[family] = Setup(root, family)
    return _SETUPS[family]


def by_family(families=FAMILIES):
    return pytest.mark.parametrize("setup", families, indirect=True)


# ---------------------------------------------------------------- the converter


@by_family()
def test_converter_extracts_exactly_the_mtp_tensors_from_only_their_shard(setup, tmp_path):
    config = json.loads((setup.head_dir / "config.json").read_text())
    assert config["source_tensors"] == mtp_tensor_names(setup.src)
    assert config["shards_read"] == [MTP_SHARD] and config["shards_total"] == 3
    # The other shards are never opened: a folder without them converts to the same head.
    partial = tmp_path / "partial"
    shutil.copytree(setup.src, partial)
    for shard in SHARDS:
        if shard != MTP_SHARD:
            (partial / shard).unlink()
    again = convert_mtp_only(str(partial), tmp_path / "head", dtype="float32")
    a, b = mx.load(str(setup.head_dir / "mtp.safetensors")), mx.load(str(again / "mtp.safetensors"))
    assert sorted(a) == sorted(b) and all(mx.array_equal(a[k], b[k]).item() for k in a)


@by_family()
def test_fusion_tensors_come_from_the_reference_names(setup):
    source = mx.load(str(setup.src / MTP_SHARD))
    params = dict(tree_flatten(setup.head.parameters()))
    # Qwen3NextRMSNorm (vLLM's GemmaRMSNorm) stores w for x * (1 + w)
    offset = 1.0 if setup.family.startswith(("qwen3_next", "qwen3_5")) else 0.0
    for part, name in FUSION_NAMES[setup.family].items():
        want = source[name + ".weight"] + (offset if part != "proj" else 0.0)
        assert mx.allclose(params[f"layers.0.{part}.weight"], want).item(), (part, name)
    # Copies of the shared embedding and output head are not kept: the base's are used.
    assert not any("embed_tokens" in k or "head" in k for k in params)


@by_family(FAST)
def test_the_mlx_lm_base_loads_without_the_mtp_tensors(setup):
    from mlx_lm.utils import load_model

    model, _ = load_model(setup.src)  # strict: an MTP tensor left over would be refused
    names = [k for k, _ in tree_flatten(model.parameters())]
    assert not any("mtp" in k or "enorm" in k or "eh_proj" in k for k in names)


# ---------------------------------------------------------------- exactness


@by_family()
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_self_speculation_greedy_equals_mlx_lm_generate_step(setup, depth):
    want = oracle_greedy(setup.base, PROMPT, N_NEW)
    drafter = setup.drafter(depth)
    ids, stats = speculative_generate(setup.base, drafter, PROMPT, N_NEW, k=depth)
    assert ids == want
    assert stats.drafted > 0 and stats.accepted > 0


@by_family()
def test_drafts_equal_a_no_cache_reference_forward_every_round(setup):
    drafter = setup.drafter(3)
    context = list(PROMPT)
    seen = []
    propose = drafter.propose

    def recording_propose(k, policy, key):
        ids, q = propose(k, policy, key)
        seen.append((list(context), ids, drafter.draft_logits))
        return ids, q

    drafter.propose = recording_propose
    for emission in speculative_stream(setup.base, drafter, PROMPT, N_NEW, k=3):
        context += emission.ids
    full = 0
    for ctx, ids, logits in seen:
        got = ids.tolist()
        if not got:
            continue
        want, want_logits = reference_drafts(setup.head, setup.base, ctx, len(got))
        assert got == want, ctx
        np.testing.assert_allclose(np.array(logits), np.array(want_logits), rtol=1e-3, atol=1e-3)
        full += 1
    assert full >= 5
    assert any(a == n for n, a in drafter.rounds)  # full acceptance was exercised


def members(cache):
    return list(cache.caches) if hasattr(cache, "caches") else [cache]


def cache_checker(setup, prompt):
    """An on_commit hook: after every commit the MTP layer's cache equals a rebuild from target-only hidden
    states (one full trunk pass, no cache) over the committed pairs, and the queued pairs are the rest."""
    context, checked = list(prompt), []

    def on_commit(target_seq, d):
        n_drafts, accepted = d.rounds[-1]
        context.extend(d._drafts[:accepted].tolist() + [target_seq.pending.item()])
        committed = target_seq.committed  # tokens fed and kept; context[committed] is pending
        assert len(context) == committed + 1
        h = hidden_states(setup.base, mx.array(context[:committed], dtype=mx.int32))
        emb = setup.base.model.embed_tokens(mx.array(context[1 : committed + 1], dtype=mx.int32))
        rows = d.committed_rows
        assert all(c.offset == rows for c in members(d.cache))  # no speculative row survives a commit
        queue = d.pending_pairs()
        assert rows + (queue[1].shape[0] if queue is not None else 0) == committed
        if rows:
            cache = setup.head.make_cache()
            setup.head(h[None, :rows], emb[None, :rows], cache=cache)
            for got_c, want_c in zip(members(d.cache), members(cache)):  # every member (DeepSeek-V3.2: 2)
                assert got_c.offset == want_c.offset == rows
                for got, want in ((got_c.keys, want_c.keys), (got_c.values, want_c.values)):
                    np.testing.assert_allclose(np.array(got[..., :rows, :]), np.array(want[..., :rows, :]),
                                               rtol=1e-4, atol=1e-4)
        if queue is not None:
            np.testing.assert_allclose(np.array(queue[0]), np.array(h[rows:]), rtol=1e-4, atol=1e-4)
            assert queue[1].tolist() == context[rows + 1 : committed + 1]
        checked.append(rows)

    return on_commit, checked


@by_family()
def test_mtp_cache_equals_a_target_only_rebuild_at_every_commit(setup):
    on_commit, checked = cache_checker(setup, PROMPT)
    list(speculative_stream(setup.base, setup.drafter(3), PROMPT, N_NEW, k=3, on_commit=on_commit))
    assert len(checked) >= 5 and checked[-1] > len(PROMPT)


@by_family(["glm4_moe"])
def test_a_prompt_of_one_token_drafts_from_the_second_round(setup):
    want = oracle_greedy(setup.base, [9], 12)
    drafter = setup.drafter(2)
    ids, stats = speculative_generate(setup.base, drafter, [9], 12, k=2)
    assert ids == want and drafter.rounds[0][0] == 0 and stats.drafted > 0


@pytest.mark.slow
@by_family(["glm4_moe"])
def test_sampled_self_speculation_keeps_the_target_distribution(setup):
    """Joint distribution of 3 sampled tokens (temperature 1, top-k 2: 8 sequences) against the exact one."""
    from mlx_specdec.sampling import SamplingPolicy
    from tests.test_distribution import chi_square_test

    policy = SamplingPolicy(1.0, 2, None)
    base, prompt = setup.base, [1, 2, 0, 1, 2, 0, 1]  # a prompt whose drafts the target often accepts

    def probs(ctx):
        return np.array(policy.probs(base(mx.array(ctx, dtype=mx.int32)[None])[0, -1:]))[0]

    joint = {}
    for a in np.flatnonzero(probs(prompt)):
        pa = probs(prompt)[a]
        for b in np.flatnonzero(probs(prompt + [int(a)])):
            pb = probs(prompt + [int(a)])[b]
            pc = probs(prompt + [int(a), int(b)])
            for c in np.flatnonzero(pc):
                joint[(int(a), int(b), int(c))] = float(pa * pb * pc[c])
    samples, accepted, drafted = [], 0, 0
    for seed in range(500):
        out, stats = speculative_generate(base, setup.drafter(2), prompt, 3, k=2, temperature=1.0, top_k=2, seed=seed)
        samples.append(out)
        accepted += stats.accepted
        drafted += stats.drafted
    stat, critical = chi_square_test(samples, joint)
    assert stat < critical
    assert 0 < accepted < drafted


# ---------------------------------------------------------------- quantised bases and heads


@pytest.mark.slow
@by_family(["mimo", "qwen3_next"])
def test_a_4bit_base_with_an_fp16_head_self_speculates_exactly(setup, tmp_path):
    from mlx_lm import convert as mlx_lm_convert
    from mlx_lm.utils import load as mlx_lm_load

    q_base = tmp_path / "base-4bit"
    mlx_lm_convert(str(setup.src), str(q_base), quantize=True, q_bits=4, q_group_size=64)
    head_dir = convert_mtp_only(str(setup.src), tmp_path / "head-fp16")  # float16 by default
    base, tok = mlx_lm_load(str(q_base))
    assert "quantization" in json.loads((q_base / "config.json").read_text())
    head = load_native_head(head_dir, base, tok)
    want = oracle_greedy(base, PROMPT, N_NEW)
    for depth in (1, 3):
        ids, stats = speculative_generate(base, NativeMTPDrafter(head, base), PROMPT, N_NEW, k=depth)
        assert ids == want and stats.drafted > 0
    # The command line, as a user types it.
    out = subprocess.run(
        [sys.executable, "-m", "mlx_specdec.generate", "--model", str(q_base), "--draft-model", str(head_dir),
         "-k", "3", "--prompt", "x,y;z@#", "--ignore-chat-template", "-m", "16", "--json", "--compare"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["compare"]["identical"] is True and record["stats"]["drafted"] > 0


@by_family(["glm4_moe"])
def test_a_quantised_head_loads_and_stays_exact(setup, tmp_path):
    head_dir = convert_mtp_only(str(setup.src), tmp_path / "head-q8", q_bits=8, q_group_size=32)
    config = json.loads((head_dir / "config.json").read_text())
    assert config["quantization"]["bits"] == 8
    head = load_native_head(head_dir, setup.base, setup.tokenizer)
    assert any(k.endswith(".scales") for k, _ in tree_flatten(head.parameters()))
    ids, stats = speculative_generate(setup.base, NativeMTPDrafter(head, setup.base), PROMPT, N_NEW, k=3)
    assert ids == oracle_greedy(setup.base, PROMPT, N_NEW) and stats.accepted > 0


# ---------------------------------------------------------------- refusals


def _rewrite_index(folder: Path, keep) -> None:
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["weight_map"] = {k: v for k, v in index["weight_map"].items() if keep(k)}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))


@by_family(["glm4_moe"])
def test_a_checkpoint_without_mtp_tensors_is_refused_naming_what_was_expected(setup, tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(setup.src, plain)
    _rewrite_index(plain, lambda k: not k.startswith("model.layers.2."))
    with pytest.raises(MissingMTPError, match=r"no MTP tensors; expected model\.layers\.2\.\*"):
        convert_mtp_only(str(plain), tmp_path / "out")


def test_an_unknown_family_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "llama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 2}))
    with pytest.raises(UnknownMTPFamilyError, match="model_type 'llama' has no native MTP support; expected one of"):
        convert_mtp_only(str(folder), tmp_path / "out")


@by_family(["mimo"])
def test_a_shape_mismatch_is_refused_naming_the_tensor(setup, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(setup.src, bad)
    tensors = mx.load(str(bad / MTP_SHARD))
    tensors["model.mtp_layers.0.input_proj.weight"] = tensors["model.mtp_layers.0.input_proj.weight"][:, :10]
    mx.save_safetensors(str(bad / MTP_SHARD), tensors)
    with pytest.raises(MTPShapeError, match=r"'layers\.0\.proj\.weight': config implies shape \(64, 128\)"):
        convert_mtp_only(str(bad), tmp_path / "out")


@by_family(["mimo"])
def test_a_head_for_another_base_is_refused_naming_both(setup, root):
    glm = _SETUPS.get("glm4_moe") or Setup(root, "glm4_moe")
    _SETUPS["glm4_moe"] = glm
    with pytest.raises(IncompatibleModelsError, match=r"is for glm4_moe; the base 'mimo-base' is mimo"):
        load_native_head(glm.head_dir, setup.base, setup.tokenizer, base_name="mimo-base")


@by_family(["mimo"])
def test_a_head_for_a_base_of_another_size_is_refused(setup, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(setup.head_dir, other)
    config = json.loads((other / "config.json").read_text())
    config["base_config"]["num_hidden_layers"] = 5
    (other / "config.json").write_text(json.dumps(config))
    with pytest.raises(IncompatibleModelsError, match=r"expects num_hidden_layers 5; the base 'b' has 2"):
        load_native_head(other, setup.base, setup.tokenizer, base_name="b")


@by_family(["mimo"])
def test_command_lines_refuse_in_one_line_with_exit_2(setup, tmp_path):
    from mlx_specdec.cli.convert import main as convert_main
    from mlx_specdec.cli.generate import main as generate_main

    plain = tmp_path / "plain"
    shutil.copytree(setup.src, plain)
    _rewrite_index(plain, lambda k: not k.startswith("model.mtp_layers."))
    assert convert_main([str(plain), "--mtp-only", "--out", str(tmp_path / "h")]) == 2
    assert not (tmp_path / "h").exists()
    # A head given as the model is named for what it is.
    assert generate_main(["--model", str(setup.head_dir), "--prompt", "x"]) == 2


@by_family(["mimo"])
def test_convert_command_writes_a_head_with_a_card(setup, tmp_path, capsys):
    from mlx_specdec.cli.convert import main as convert_main

    out = tmp_path / "mimo-mtp"
    assert convert_main([str(setup.src), "--mtp-only", "--out", str(out)]) == 0
    assert "mimo MTP layer" in capsys.readouterr().out
    card = (out / "README.md").read_text()
    assert "vLLM model_executor/models/mimo_mtp.py" in card and MTP_SHARD in card
    assert json.loads((out / "config.json").read_text())["dtype"] == "float16"


@by_family(["glm4_moe"])
def test_from_the_hub_only_config_index_tokenizer_and_the_mtp_shard_are_fetched(setup, tmp_path, monkeypatch):
    """The online path, with the hub client replaced by the fixture folder: no shard but the MTP one is asked for."""
    import huggingface_hub

    import mlx_specdec.convert as conv

    asked = []

    def fake_download(repo, name, **kwargs):
        assert repo == "someone/tiny-glm"
        asked.append(name)
        path = setup.src / name
        if not path.is_file():
            raise FileNotFoundError(name)
        return str(path)

    monkeypatch.setattr(conv, "hub_offline", lambda: False)
    monkeypatch.setattr(conv, "hub_reachable", lambda endpoint, timeout=5.0: None)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    head = convert_mtp_only("someone/tiny-glm", tmp_path / "head", dtype="float32")
    shards = [n for n in asked if n.endswith(".safetensors")]
    assert shards == [MTP_SHARD]
    config = json.loads((head / "config.json").read_text())
    assert config["source"] == "someone/tiny-glm" and config["tokenizer_fingerprint"] is not None


@by_family(["mimo"])
def test_a_head_from_another_tokenizer_is_refused_naming_both(setup, tmp_path):
    other = tmp_path / "other-tok"
    shutil.copytree(setup.head_dir, other)
    config = json.loads((other / "config.json").read_text())
    config["tokenizer_fingerprint"] = "0123456789abcdef"
    (other / "config.json").write_text(json.dumps(config))
    with pytest.raises(IncompatibleModelsError, match=r"has tokenizer 0123456789abcdef; the base 'b' has [0-9a-f]{16}"):
        load_native_head(other, setup.base, setup.tokenizer, base_name="b")


@by_family(["qwen3_next"])
def test_a_prompt_longer_than_a_prefill_chunk_fills_the_mtp_cache_in_chunks(setup, monkeypatch):
    import mlx_specdec.drafters as drafters

    monkeypatch.setattr(drafters.mtp, "PREFILL_CHUNK", 3)
    prompt = PROMPT + [11, 12, 1, 1, 2]
    on_commit, checked = cache_checker(setup, prompt)
    ids = [t for e in speculative_stream(setup.base, setup.drafter(2), prompt, 16, k=2, on_commit=on_commit)
           for t in e.ids]
    assert ids == oracle_greedy(setup.base, prompt, 16)
    assert checked[0] == len(prompt) - 1  # the first round fed every prompt pair, three at a time


@by_family(["mimo"])
def test_generate_command_self_speculates_with_a_native_head(setup, capsys):
    from mlx_specdec.cli.generate import main as generate_main

    code = generate_main(["--model", str(setup.src), "--draft-model", str(setup.head_dir), "-k", "2",
                          "--prompt", "x,y;z@#", "--ignore-chat-template", "-m", "12", "--json", "--compare"])
    record = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and record["compare"]["identical"] is True and record["stats"]["drafted"] > 0


@by_family(["deepseek_v32"])
def test_fp8_tensors_with_block_scales_are_dequantised_fusion_included(setup, tmp_path):
    """DeepSeek ships fp8 weights with a weight_scale_inv per 128x128 block; the whole MTP layer goes through
    mlx-lm's own dequantisation (the fusion projection too)."""
    fp8 = tmp_path / "fp8"
    shutil.copytree(setup.src, fp8)
    tensors = mx.load(str(fp8 / MTP_SHARD))
    names = ["model.layers.2.eh_proj.weight", "model.layers.2.self_attn.q_a_proj.weight"]
    scale = 0.5
    for name in names:
        tensors[name] = mx.to_fp8(tensors[name] / scale)
        rows, cols = tensors[name].shape
        tensors[name.replace(".weight", ".weight_scale_inv")] = mx.full(((rows + 127) // 128, (cols + 127) // 128), scale)
    mx.save_safetensors(str(fp8 / MTP_SHARD), tensors)
    index = json.loads((fp8 / "model.safetensors.index.json").read_text())
    index["weight_map"].update({n.replace(".weight", ".weight_scale_inv"): MTP_SHARD for n in names})
    (fp8 / "model.safetensors.index.json").write_text(json.dumps(index))
    head = convert_mtp_only(str(fp8), tmp_path / "head", dtype="float32")
    got, want = mx.load(str(head / "mtp.safetensors")), mx.load(str(setup.head_dir / "mtp.safetensors"))
    assert sorted(got) == sorted(want)
    for name in ("layers.0.proj.weight", "layers.0.block.self_attn.q_a_proj.weight"):
        err = mx.abs(got[name] - want[name]).max().item()
        assert 0 < err < 0.1 * mx.abs(want[name]).max().item(), name  # fp8 precision, not garbage


@by_family(["mimo", "qwen3_next"])
@pytest.mark.parametrize("strategy", ["recompute", "refeed", "positions", "auto"])
def test_every_state_strategy_gives_the_drafter_its_hidden_rows(setup, strategy):
    """The verification pass's hidden rows reach the MTP layer under every way the target keeps its state
    (qwen3_next is hybrid: its recurrent layers roll back by re-feed or per-position states)."""
    ids, stats = speculative_generate(setup.base, setup.drafter(3), PROMPT, N_NEW, k=3, strategy=strategy)
    assert ids == oracle_greedy(setup.base, PROMPT, N_NEW) and stats.accepted > 0


@by_family(["qwen3_next"])
def test_a_quantised_head_keeps_its_moe_router_unquantised(setup, tmp_path):
    head_dir = convert_mtp_only(str(setup.src), tmp_path / "head-q4", q_bits=4, q_group_size=32)
    names = set(mx.load(str(head_dir / "mtp.safetensors")))
    assert "layers.0.block.mlp.gate.weight" in names and "layers.0.block.mlp.gate.scales" not in names
    assert "layers.0.block.self_attn.q_proj.scales" in names
    head = load_native_head(head_dir, setup.base, setup.tokenizer)
    ids, _ = speculative_generate(setup.base, NativeMTPDrafter(head, setup.base), PROMPT, N_NEW, k=2)
    assert ids == oracle_greedy(setup.base, PROMPT, N_NEW)
