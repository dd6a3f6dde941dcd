"""`python -m mlx_specdec.generate`: speculative (or plain) decoding from the command line.

    python -m mlx_specdec.generate --prompt "Once upon a time" --compare
    python -m mlx_specdec.generate --model models/storylm-5m --draft-model models/storylm-5m-mtp -k 3
    python -m mlx_specdec.generate --model mlx-community/SmolLM2-360M-Instruct --draft-model prompt-lookup

The drafter is a model sharing the target's tokenizer, an MTP head folder
(it drafts from the target's own trunk) or `prompt-lookup`.

Through a chat template the response alone is printed, as mlx_lm.generate
prints it; a raw prompt (no template, --ignore-chat-template) is printed
before its continuation. The end-of-sequence token ends the run and is
counted, but its text (e.g. <|im_end|>) is never printed nor in the JSON text.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import mlx.core as mx

from ..distributed import ranks_of, resolve_draft_on
from ..errors import SpecDecError
from ..generate import SpecStats, encode_prompt, plain_stream, speculative_stream
from ..sampling import SamplingPolicy
from ..state import DEFAULT_QUANTIZED_KV_START
from .common import Parser, json_record, number, run_main

PINNED_K = 4  # the default draft length where k="auto" cannot serve (see the -k help)
# What --compare's plain figure is: the same prompt and settings, this process, after the speculative run.
BASELINE = "same prompt, timed after the speculative run; both warmed up first"


def _parser():
    finite = number(float)
    p = Parser(
        prog="python -m mlx_specdec.generate",
        description="Lossless speculative decoding with MLX. Defaults to the shipped StoryLM 5M, its own MTP head drafting.",
    )
    p.add_argument("--model", help="target: a model-store folder, an mlx-lm folder or a hub id (default: storylm-5m)")
    p.add_argument(
        "--draft-model",
        help="drafter: a model sharing the target's tokenizer, an MTP head folder (e.g. storylm-5m-mtp, or a "
        "checkpoint's own MTP layer from `convert --mtp-only`), an EAGLE-3 or block (DFlash) drafter folder (ours or "
        "a published layout), or 'prompt-lookup' (default: storylm-5m-mtp with the default target)",
    )
    p.add_argument("--no-draft", action="store_true", help="plain decoding of the target, no speculation")
    p.add_argument("-k", "--num-draft-tokens", type=_draft_tokens, default=None,
                   help="draft tokens per round, or 'auto' (the default): each round picks k, 0 included, from "
                        "the running acceptance and the measured round times; N pins it. The default is "
                        f"{PINNED_K} where auto cannot serve: a sharded target (each rank would time its own rounds) "
                        "and seeded sampling (auto's choices follow the clock, so a seed would not reproduce the text)")
    p.add_argument("--prompt", "-p", default="Once upon a time", help="prompt text ('-' reads it from stdin)")
    p.add_argument("--system-prompt", default=None, help="system message for the chat template")
    p.add_argument("--ignore-chat-template", action="store_true",
                   help="send the raw prompt, without the tokenizer's chat template (applied by default when it has one)")
    p.add_argument("--chat-template-config", default=None,
                   help="extra arguments for the chat template, as a JSON object (e.g. '{\"enable_thinking\": false}')")
    p.add_argument("--extra-eos-token", nargs="+", default=(),
                   help="more tokens (or ids) that end generation, beside the tokenizer's eos_token_ids")
    p.add_argument("--max-tokens", "-m", type=int, default=200, help="exact cap on generated tokens (default 200)")
    p.add_argument("--temp", type=finite, default=0.0, help="sampling temperature; 0 = greedy (default)")
    p.add_argument("--top-p", type=finite, default=None, help="nucleus sampling mass in (0, 1]")
    p.add_argument("--top-k", type=int, default=None, help="sample among the k most likely tokens")
    p.add_argument("--min-p", type=number(float, low=0, high=1), default=0.0,
                   help="keep tokens at least min-p times as likely as the top token (mlx-lm's rule; default 0: off)")
    p.add_argument("--kv-bits", type=int, default=None, choices=[2, 3, 4, 5, 6, 8],
                   help="quantize the target's KV cache to this many bits once it holds --quantized-kv-start "
                        "rows, as mlx-lm does; rolls back exactly")
    p.add_argument("--quantized-kv-start", type=number(int, low=0), default=DEFAULT_QUANTIZED_KV_START,
                   help=f"rows after which --kv-bits quantizes the cache (default {DEFAULT_QUANTIZED_KV_START}, mlx-lm's)")
    p.add_argument("--kv-group-size", type=int, default=64, choices=[32, 64, 128],
                   help="group size of the KV-cache quantization (default 64)")
    p.add_argument("--max-kv-size", type=number(int, low=5), default=None,
                   help="bound the target's KV cache as mlx-lm does (4 sink rows + a ring; models with their own "
                        "cache layout ignore it); rolls back exactly")
    p.add_argument("--verbose", type=_str2bool, default=True,
                   help="'False' or 'F' prints only the response text (mlx-lm's flag; default True)")
    p.add_argument("--seed", type=int, default=None, help="random seed for sampling (any integer)")
    p.add_argument("--strategy", default="auto",
                   choices=["auto", "cache", "replay", "refeed", "positions", "compiled", "recompute"],
                   help="committed-state strategy (default auto: one compiled step over fixed-size KV buffers where "
                        "a probe shows it matches the model, else cache). cache: each layer's mlx-lm cache rolls back "
                        "by its own rule, recurrent layers by replay; replay, refeed and positions pick how recurrent "
                        "layers are rebuilt")
    p.add_argument("--sharding", default=None, choices=["tensor", "pipeline", "auto"],
                   help="under mlx.launch: shard the target across the processes (auto, the default there: tensor "
                        "where the model supports it, else pipeline); the drafter is whole; only rank 0 prints")
    p.add_argument("--draft-on", default=None, choices=["root", "every"],
                   help="with a sharded target: run a model drafter on rank 0 only and send its drafts with the "
                        "round (root, the default), or whole on every rank (every; MTP heads and prompt lookup always)")
    p.add_argument("--no-calibration", action="store_true",
                   help="k=auto starts cold and keeps nothing: neither read nor write the calibration file, where "
                        "what each pair's rounds cost on this machine is kept between commands "
                        "(MLX_SPECDEC_CALIBRATION=off does the same; =PATH moves the file)")
    p.add_argument("--compare", action="store_true", help="then run plain decoding of the target (after the speculative run, both warmed up first) and report the speedup")
    p.add_argument("--json", action="store_true", help="print one JSON record instead of streaming text")
    return p


def _str2bool(text: str) -> bool:
    return text.lower() not in ("false", "f")  # as mlx-lm


def _token_id(tokenizer, token: str) -> int:
    """An id for --extra-eos-token: an integer, or a token of the vocabulary."""
    try:
        return int(token)
    except ValueError:
        pass
    if hasattr(tokenizer, "sp"):  # StoryTokenizer (sentencepiece)
        tid = tokenizer.sp.piece_to_id(token)
        unknown = tid == tokenizer.unk_id and token != tokenizer.sp.id_to_piece(tid)
    else:
        tid = tokenizer.convert_tokens_to_ids(token)
        unk = getattr(tokenizer, "unk_token_id", None)
        unknown = tid is None or (unk is not None and tid == unk and token != getattr(tokenizer, "unk_token", None))
    if unknown:
        raise SpecDecError(f"--extra-eos-token {token!r} is not a token of this tokenizer")
    return int(tid)


def _prompt_text(args) -> str:
    """The prompt as the user gave it: --prompt with its \\n and \\t escapes read
    (as mlx_lm.generate does), or all of stdin for '-'."""
    text = args.prompt.replace("\\n", "\n").replace("\\t", "\t")
    if text == "-":
        text = sys.stdin.read()
    if not text:
        raise SpecDecError("--prompt is empty" + (" (stdin gave no text)" if args.prompt == "-" else ""))
    return text


def _prompt_ids(args, tokenizer, text: str | None = None) -> tuple[list[int], bool]:
    """The prompt's ids, through the chat template when the tokenizer has one (as
    mlx_lm.generate does), and whether the template was applied. `text` is the
    prompt already read by `_prompt_text` (read here when not given)."""
    import json

    if text is None:
        text = _prompt_text(args)
    template_kwargs = {}
    if args.chat_template_config is not None:
        try:
            template_kwargs = json.loads(args.chat_template_config)
        except json.JSONDecodeError as e:
            raise SpecDecError(f"--chat-template-config is not valid JSON ({e.msg} at character {e.pos})") from None
        if not isinstance(template_kwargs, dict):
            raise SpecDecError(f"--chat-template-config must be a JSON object, got {args.chat_template_config!r}")
    if args.ignore_chat_template or not getattr(tokenizer, "has_chat_template", False):
        return encode_prompt(tokenizer, text), False
    messages = [{"role": "system", "content": args.system_prompt}] if args.system_prompt is not None else []
    messages.append({"role": "user", "content": text})
    try:
        rendered = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **template_kwargs)
        ids = list(tokenizer.encode(rendered, add_special_tokens=False))
    except Exception as e:  # noqa: BLE001 - jinja and transformers raise their own types
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SpecDecError(f"the tokenizer's chat template failed ({first}); --ignore-chat-template sends the raw prompt") from None
    return ids, True


def _timed(stream, on_item=None):
    """Drain a stream, timing it; every item has been synchronised by the loop itself."""
    items = []
    start = time.perf_counter()
    try:
        for item in stream:
            items.append(item)
            if on_item is not None:
                on_item(item)
    except KeyboardInterrupt:
        return items, time.perf_counter() - start, True
    mx.synchronize()
    return items, time.perf_counter() - start, False


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    group = mx.distributed.init()
    rank = group.rank()
    if rank != 0:  # under mlx.launch only rank 0 prints; every rank's errors still reach stderr
        sys.stdout = open(os.devnull, "w")
    code = run_main(_run_rank, args, json_errors=args.json and rank == 0)
    if code != 0 and group.size() > 1:
        # mlx.launch stops every rank with SIGTERM once one exits non-zero. A normal interpreter exit closes
        # this rank's sockets (finalisation) well before the process is gone, so the peer that notices the
        # loss can exit first and get this rank killed instead of reporting its own code (130 after Ctrl-C).
        # Leaving at once makes the socket close and the exit one moment.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _run_rank(args) -> int:
    from ..distributed import peer_lost
    from ..errors import PeerLost

    try:
        return _run(args)
    except RuntimeError as e:
        if peer_lost(e):  # another rank stopped (Ctrl-C there, an error): stop here too, in one line
            raise PeerLost(f"another process of this sharded run stopped ({e})") from None
        raise


def _load_drafter(name: str, target, tokenizer, target_name: str, model_here: bool = True):
    """A drafter by name: 'prompt-lookup', an MTP head folder (drafts from the
    target's own trunk), an EAGLE-3 or block (DFlash) drafter folder (reads the target's features), or a model sharing the target's tokenizer (None where
    `model_here` is false: a rank of a sharded target that receives rank 0's drafts)."""
    from ..drafters import MTPDrafter, PromptLookupDrafter
    from ..loading import check_pair, load, resolve_model_path
    from ..models.head_store import is_head_folder, load_head
    from ..models.dflash_store import is_dflash_folder
    from ..models.eagle3_store import is_eagle3_folder
    from ..models.native_mtp import is_native_head_folder, load_native_head

    if name == "prompt-lookup":
        return PromptLookupDrafter()
    path = resolve_model_path(name)
    if path is not None and is_head_folder(path):
        return MTPDrafter(load_head(path, target, tokenizer))
    if path is not None and is_eagle3_folder(path):  # an EAGLE-3 drafter: ours or a published layout
        from ..drafters.eagle3 import Eagle3Drafter
        from ..models.eagle3_store import load_eagle3

        return Eagle3Drafter(load_eagle3(path, target))
    if path is not None and is_dflash_folder(path):  # a block drafter: ours or z-lab's layout
        from ..drafters.dflash import DFlashDrafter
        from ..models.dflash_store import load_dflash

        return DFlashDrafter(load_dflash(path, target))
    if path is not None and is_native_head_folder(path):  # a checkpoint's own MTP layer (convert --mtp-only)
        from ..drafters import NativeMTPDrafter

        return NativeMTPDrafter(load_native_head(path, target, tokenizer, base_name=target_name), target)
    if not model_here:
        return None
    drafter, draft_tok = load(name)
    check_pair(tokenizer, draft_tok, target_name, name)
    return drafter


def _draft_tokens(text: str):
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'auto', got {text!r}") from None


def _run(args) -> int:
    from ..console import LEGEND, TokenStream, print_summary
    from ..loading import DEFAULT_DRAFTER, DEFAULT_TARGET, load

    policy = SamplingPolicy(args.temp, args.top_k, args.top_p, args.min_p or None)  # validate before loading anything
    k = args.num_draft_tokens
    if k not in (None, "auto") and k < 1:
        raise SpecDecError(f"--num-draft-tokens must be >= 1, got {k}")
    if args.max_tokens < 0:
        raise SpecDecError(f"--max-tokens must be >= 0, got {args.max_tokens}")
    if not args.prompt:
        raise SpecDecError("--prompt is empty")
    if args.no_calibration:
        os.environ["MLX_SPECDEC_CALIBRATION"] = "off"  # read by mlx_specdec.calibration, for this process only
    strategy = args.strategy
    if args.kv_bits is not None or args.max_kv_size is not None:
        from ..state import cache_strategy

        strategy = cache_strategy(args.strategy, kv_bits=args.kv_bits, kv_group_size=args.kv_group_size,
                                  quantized_kv_start=args.quantized_kv_start, max_kv_size=args.max_kv_size)
    target_name = args.model or DEFAULT_TARGET
    draft_name = None
    if not args.no_draft:
        draft_name = args.draft_model or (DEFAULT_DRAFTER if args.model is None else None)

    sharding = args.sharding
    if sharding is None and mx.distributed.init().size() > 1:
        sharding = "auto"  # launched on several processes: that is what they are for
    target, tokenizer = load(target_name, sharding=sharding)
    ranks = ranks_of(target)
    if k is None:
        k = PINNED_K if ranks is not None or (not policy.greedy and args.seed is not None) else "auto"
    model_here = ranks is None or ranks.is_root or args.draft_on == "every"
    drafter = None
    if draft_name is not None:
        drafter = _load_drafter(draft_name, target, tokenizer, target_name, model_here)
    speculating = draft_name is not None
    from ..api import eos_ids

    text = _prompt_text(args)
    prompt, templated = _prompt_ids(args, tokenizer, text)
    eos_id = eos_ids(tokenizer) | {_token_id(tokenizer, t) for t in args.extra_eos_token}
    rank_zero = ranks is None or ranks.is_root
    if args.compare and not speculating and rank_zero:
        # Plain decoding is the baseline itself: say so once instead of a speedup of 1.00x or silence.
        why = "with --no-draft" if args.no_draft else "without a --draft-model"
        print(f"note: --compare compares nothing {why}: this run is plain decoding, the baseline itself",
              file=sys.stderr)
    sampling = dict(temperature=policy.temperature, top_k=policy.top_k, top_p=policy.top_p, min_p=policy.min_p,
                    seed=args.seed)

    def run_plain():
        return plain_stream(target, prompt, args.max_tokens, eos_id=eos_id, strategy=strategy, **sampling)

    def run_spec(stats):
        return speculative_stream(
            target, drafter, prompt, args.max_tokens, k=k, eos_id=eos_id, strategy=strategy,
            stats=stats, draft_on=args.draft_on, **sampling,
        )

    if args.compare and speculating:
        # Warm both paths up (allocations, compiled traces for each block length)
        # so neither pays first-call costs inside the timed run.
        warm = min(64, args.max_tokens)
        list(plain_stream(target, prompt, warm, strategy=strategy))
        list(speculative_stream(target, drafter, prompt, warm, k=k, strategy=strategy, draft_on=args.draft_on))

    show = not args.json and args.verbose
    # What a user reads: a raw prompt's continuation shows the prompt before it (dim in a terminal); a chat
    # model's reply shows the response only, as mlx_lm.generate does, never the templated prompt. The
    # end-of-sequence token is generated and counted (ids, stats) but its text (<|im_end|>) is never shown.
    shown_prompt = () if templated else prompt
    view = TokenStream(tokenizer, prompt=shown_prompt, legend=LEGEND if speculating else None) if show else None

    def show_round(ids, kinds):
        visible = [(t, kind) for t, kind in zip(ids, kinds) if t not in eos_id]
        if visible:
            view.write([t for t, _ in visible], [kind for _, kind in visible])

    stats = SpecStats()
    if speculating:
        emissions, seconds, interrupted = _timed(run_spec(stats), (lambda e: show_round(e.ids, e.kinds)) if show else None)
        new_ids = [t for e in emissions for t in e.ids]
    else:
        new_ids, seconds, interrupted = _timed(run_plain(), (lambda t: show_round([t], ["target"])) if show else None)
        stats.generated = stats.target_passes = len(new_ids)
    if show:
        view.finish()
    text_ids = new_ids[:-1] if new_ids and new_ids[-1] in eos_id else new_ids  # the engine stops on its eos

    record = {
        "model": target_name,
        "draft_model": draft_name,
        "k": k if speculating else None,
        "temperature": policy.temperature,
        "prompt": text,  # what the user gave (stdin's text for '-'), not the templated prompt
        "prompt_tokens": len(prompt),
        "chat_template": templated,
        "ids": new_ids,
        "text": tokenizer.decode(text_ids),  # without the end-of-sequence token's text; `ids` keep it
        "stats": stats.as_dict(),
        "seconds": seconds,
        "tokens_per_s": len(new_ids) / seconds if seconds > 0 else 0.0,
        "interrupted": interrupted,
    }
    if ranks is not None:
        record["sharding"] = {"kind": ranks.sharding, "processes": ranks.size,
                              "draft_on": resolve_draft_on(args.draft_on, drafter) if speculating else None}
    if args.compare and speculating and not interrupted:
        plain_ids, plain_seconds, interrupted = _timed(run_plain())
        record["interrupted"] = interrupted
    if args.compare and speculating and not interrupted:
        # Only a finished baseline gives a verdict: a cut-short one would differ falsely.
        record["compare"] = {
            "plain_tokens_per_s": len(plain_ids) / plain_seconds if plain_seconds > 0 else 0.0,
            "speedup": (len(new_ids) / seconds) / (len(plain_ids) / plain_seconds) if plain_seconds > 0 and seconds > 0 else 0.0,
            "identical": plain_ids == new_ids if policy.greedy else None,
            "baseline": BASELINE,
        }

    if args.json:
        print(json_record(record))
    elif not args.verbose:
        print(record["text"])
    else:
        rows = [("generated", f"{len(new_ids)} tokens in {seconds:.2f} s ({record['tokens_per_s']:.1f} tokens/s)")]
        if speculating:
            rows += [
                ("target passes", str(stats.target_passes)),
                ("drafted / accepted", f"{stats.drafted} / {stats.accepted}"),
                ("acceptance rate", f"{stats.acceptance_rate:.1%}"),
                ("tokens per target pass", f"{stats.tokens_per_pass:.2f}"),
            ]
        if "compare" in record:
            c = record["compare"]
            rows.append(("plain decoding", f"{c['plain_tokens_per_s']:.1f} tokens/s ({BASELINE})"))
            rows.append(("speedup", f"{c['speedup']:.2f}x"))
            if c["identical"] is not None:
                rows.append(("identical to plain greedy", "yes" if c["identical"] else "NO"))
        title = f"{draft_name} drafting for {target_name}, k={k}" if speculating else f"{target_name}, plain decoding"
        if ranks is not None:
            title += f" ({ranks.sharding}-sharded over {ranks.size} processes)"
        if interrupted:
            title += " (interrupted)"
        print_summary(rows, title)
        if "compare" in record and record["compare"]["identical"] is False:
            print("error: speculative output differs from plain greedy output", file=sys.stderr)
            return 1
    return 130 if interrupted else 0
