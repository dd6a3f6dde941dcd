"""Build the small random GPT-Neo fixture that tests/test_gpt_neo.py checks the MLX port against.

The reference is Hugging Face transformers' GPTNeoForCausalLM itself, so this script needs torch and
transformers, which the project does not depend on. Run it once, by hand, in a separate venv:

    python3 -m venv /tmp/neo-venv
    /tmp/neo-venv/bin/pip install torch transformers safetensors numpy tokenizers
    /tmp/neo-venv/bin/python scripts/make_gpt_neo_fixture.py            # writes tests/fixtures/gpt_neo/
    /tmp/neo-venv/bin/python scripts/make_gpt_neo_fixture.py --fp32     # writes tests/fixtures/gpt_neo_fp32/

It writes two Hugging Face-layout model folders that share one GPT-2-style byte-level BPE tokenizer
(trained here on a few generated sentences, 511 merges-and-bytes + <|endoftext|> = 512 ids, the
end-of-text token last as in GPT-2):

    target/    4 layers, global/local alternating, window 8, hidden 48, 4 heads, intermediate 4*hidden
    drafter/   2 layers, local/global, window 5, hidden 32, 2 heads, intermediate_size 64, eps 1e-6
    reference.npz   input_ids (1, 24), {target,drafter}_logits (1, 24, 512) float32,
                    greedy_prompt + {target,drafter}_greedy: 40-token greedy continuations by full recompute

Weights are drawn at a larger scale than GPT-Neo's initialiser (so attention is peaked and the local
window visibly matters), rounded to float16 and saved as float16; the reference logits are computed
in float32 from those same rounded values, so a port that loads the fp16 file and computes in fp32
must match to float32 rounding error, not fp16 error.

With --fp32 it writes instead one float32 model for `convert --dtype` (tests/test_convert.py):

    model/          2 layers, global/local, window 5, hidden 32, 2 heads, intermediate 64, 32 positions,
                    same tokenizer, weights drawn at the scales above and saved in float32 (never
                    rounded to fp16)
    reference.npz   input_ids (1, 24), logits (1, 24, 512) float32 from those unrounded weights

Rounding these weights to float16 moves transformers' logits by 3.3e-2, far over 1e-3, while its fp32
logits are within 1.2e-5 of fp64 ones (the script checks both), so `--dtype float32` must match the
reference to 1e-4 and `--dtype float16` cannot.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import GPT2TokenizerFast, GPTNeoConfig, GPTNeoForCausalLM

SEQ_LEN = 24
VOCAB = 512
EOS = "<|endoftext|>"


def build_tokenizer() -> GPT2TokenizerFast:
    names = "Lily Tom Ben Sue Max Mia Anna Jack Lucy Sam Timmy Sara Bob Kitty".split()
    adjs = "big small red blue green happy sad shiny little old soft yellow brave kind funny sleepy".split()
    things = (
        "rabbit puppy ship tower river forest cookie blanket window ball cat dog tree boat cake kite "
        "bird flower house car apple box toy garden park sun moon star fish bear bunny friend mom dad"
    ).split()
    verbs = "jumped ran climbed wished cooked danced liked found saw wanted played with lost shared hugged painted chased opened helped".split()
    rng = random.Random(0)
    texts = []
    for _ in range(400):
        n, a, t, v, t2 = (rng.choice(x) for x in (names, adjs, things, verbs, things))
        texts.append(
            f"Once upon a time, {n} {v} a {a} {t}. The {t} was very {rng.choice(adjs)}, so {n} went "
            f'to the {t2} and smiled. "Look!" said {n}. They were happy every day.'
        )
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB - 1,
        special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    tok.add_special_tokens([EOS])  # last id, like GPT-2's 50256
    assert tok.get_vocab_size() == VOCAB, tok.get_vocab_size()
    return GPT2TokenizerFast(tokenizer_object=tok, bos_token=EOS, eos_token=EOS, unk_token=EOS)


def random_gpt_neo(seed: int, round_fp16: bool = True, max_positions: int = 128, **cfg) -> GPTNeoForCausalLM:
    eos_id = VOCAB - 1
    config = GPTNeoConfig(
        vocab_size=VOCAB,
        max_position_embeddings=max_positions,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
        attn_implementation="eager",
        **cfg,
    )
    torch.manual_seed(seed)
    model = GPTNeoForCausalLM(config).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            elif name.endswith(".bias"):
                p.copy_(0.1 * torch.randn_like(p))
            elif "q_proj" in name or "k_proj" in name:
                p.copy_(0.3 * torch.randn_like(p))  # peaked attention: the window boundary shows in the logits
            else:
                p.copy_(0.15 * torch.randn_like(p))
    # Round once to fp16: the saved file and the fp32 reference then hold identical values.
    return model.half().float() if round_fp16 else model


@torch.no_grad()
def greedy_by_recompute(model, prompt: list[int], n: int) -> list[int]:
    ids = list(prompt)
    for _ in range(n):
        logits = model(torch.tensor([ids])).logits[0, -1]
        ids.append(int(logits.argmax()))
    return ids[len(prompt):]


@torch.no_grad()
def greedy_with_hf_cache(model, prompt: list[int], n: int) -> list[int]:
    out = model(torch.tensor([prompt]), use_cache=True)
    cache, ids = out.past_key_values, [int(out.logits[0, -1].argmax())]
    while len(ids) < n:
        out = model(torch.tensor([[ids[-1]]]), past_key_values=cache, use_cache=True)
        cache = out.past_key_values
        ids.append(int(out.logits[0, -1].argmax()))
    return ids


def save_folder(model, tokenizer, out: Path, fp16: bool = True) -> None:
    out.mkdir(parents=True)
    (model.half() if fp16 else model).save_pretrained(out, safe_serialization=True)
    model.float()
    tokenizer.save_pretrained(out)
    # The hub's GPT-Neo repos also ship the slow-tokenizer files: keep the same layout.
    tokenizer.backend_tokenizer.model.save(str(out))
    (out / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": EOS, "eos_token": EOS, "unk_token": EOS}, indent=2) + "\n"
    )
    for extra in ("generation_config.json",):
        (out / extra).unlink(missing_ok=True)


def write_fp32_fixture(out: Path, tokenizer, input_ids: list[int]) -> None:
    cfg = dict(max_positions=32, hidden_size=32, num_layers=2, num_heads=2, window_size=5, intermediate_size=64,
               attention_types=[[["global", "local"], 1]])
    model = random_gpt_neo(3, round_fp16=False, **cfg)
    ids = torch.tensor([input_ids])
    with torch.no_grad():
        logits = model(ids).logits.float().numpy()
        fp16_gap = float(np.abs(random_gpt_neo(3, **cfg)(ids).logits.numpy() - logits).max())
        fp64_gap = float(np.abs(model.double()(ids).logits.numpy() - logits).max())
        model.float()
    # fp16-rounded weights must visibly move the logits, and the fp32 reference must sit well inside 1e-4
    # of the exact (fp64) values, so that any fp32 port can match it to 1e-4.
    assert fp16_gap > 1e-2 and fp64_gap < 2e-5, (fp16_gap, fp64_gap)
    save_folder(model, tokenizer, out / "model", fp16=False)
    np.savez(out / "reference.npz", input_ids=np.array([input_ids], dtype=np.int32), logits=logits)
    print(f"model: {sum(p.numel() for p in model.parameters())} params, |logits| up to {np.abs(logits).max():.1f}; "
          f"in transformers, fp16-rounded weights move them by {fp16_gap:.1e}, fp64 compute by {fp64_gap:.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="folder to write (default tests/fixtures/gpt_neo, or gpt_neo_fp32 with --fp32)")
    ap.add_argument("--fp32", action="store_true", help="write the float32 fixture for convert --dtype instead")
    args = ap.parse_args()
    fixtures = Path(__file__).resolve().parents[1] / "tests/fixtures"
    out = Path(args.out) if args.out else fixtures / ("gpt_neo_fp32" if args.fp32 else "gpt_neo")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    tokenizer = build_tokenizer()
    text = "Once upon a time, Lily found a shiny red kite. The kite was very big, so Lily went to the park"
    input_ids = tokenizer(text).input_ids[:SEQ_LEN]
    assert len(input_ids) == SEQ_LEN, len(input_ids)
    if args.fp32:
        write_fp32_fixture(out, tokenizer, input_ids)
        total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
        print(f"wrote {out} ({total / 1024:.0f} KiB)")
        return

    target = random_gpt_neo(
        1, hidden_size=48, num_layers=4, num_heads=4, window_size=8,
        attention_types=[[["global", "local"], 2]],
    )
    drafter = random_gpt_neo(
        2, hidden_size=32, num_layers=2, num_heads=2, window_size=5, intermediate_size=64,
        layer_norm_epsilon=1e-6, attention_types=[[["local", "global"], 1]],
    )

    ref = {"input_ids": np.array([input_ids], dtype=np.int32)}
    prompt = input_ids[:6]
    ref["greedy_prompt"] = np.array(prompt, dtype=np.int32)
    for name, model in (("target", target), ("drafter", drafter)):
        with torch.no_grad():
            ref[f"{name}_logits"] = model(torch.tensor([input_ids])).logits.float().numpy()
        greedy = greedy_by_recompute(model, prompt, 40)
        assert greedy == greedy_with_hf_cache(model, prompt, 40), f"{name}: HF cached greedy disagrees"
        ref[f"{name}_greedy"] = np.array(greedy, dtype=np.int32)
        save_folder(model, tokenizer, out / name)
        print(f"{name}: {sum(p.numel() for p in model.parameters())} params, greedy {greedy[:12]}...")
    np.savez(out / "reference.npz", **ref)

    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {out} ({total / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
