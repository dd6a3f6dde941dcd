"""`python -m mlx_specdec.convert`: a GPT-Neo folder or hub id, or a StoryLM state dict, into the model store."""

from __future__ import annotations

import json
from pathlib import Path

from ..convert import CONFIG, convert_gpt_neo, convert_mtp_only, convert_state_dict, default_out
from ..models.folders import check_out
from .common import Parser, run_main


def main(argv=None) -> int:
    ap = Parser(
        prog="python -m mlx_specdec.convert",
        description="Convert a Hugging Face GPT-Neo folder / hub repo id, or a StoryLM state dict, into the model store; with --mtp-only, extract a checkpoint's MTP layer into a head folder.",
    )
    ap.add_argument("src", help="HF folder, hub repo id (e.g. roneneldan/TinyStories-33M), or a .npz/.safetensors state dict")
    ap.add_argument("--out", help="store folder to write (default: models/<source name>); must be new unless --overwrite")
    ap.add_argument("--overwrite", action="store_true", help="replace --out when it is an existing model folder")
    ap.add_argument("--key-map", help="JSON {source tensor name: StoryLM module name} for a state dict")
    ap.add_argument("--config", help="StoryLM architecture JSON for a state dict")
    ap.add_argument("--tokenizer", help="sentencepiece tokenizer.model for a state dict")
    ap.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default="float16",
                    help="weights as stored (default float16; float32 keeps an fp32 source exactly). "
                         "Computation is fp32 on the CPU whatever is stored")
    ap.add_argument("--mtp-only", action="store_true",
                    help="extract only the MTP layer(s) a DeepSeek-V3 / GLM-4.5 / MiMo / Qwen3-Next / Qwen3.5 checkpoint "
                         "ships (reading only the shards that hold them) into a head folder for --draft-model")
    ap.add_argument("--q-bits", type=int, choices=[2, 3, 4, 5, 6, 8], default=None,
                    help="with --mtp-only: quantise the head as mlx-lm does (default: keep --dtype)")
    ap.add_argument("--q-group-size", type=int, choices=[32, 64, 128], default=64,
                    help="with --mtp-only --q-bits: quantisation group size (default 64)")
    args = ap.parse_args(argv)
    return run_main(_convert, args)


def _convert(args) -> int:
    if args.mtp_only:
        return _convert_mtp(args)
    if args.q_bits is not None:
        from ..errors import SpecDecError

        raise SpecDecError("--q-bits applies to --mtp-only heads")
    out = Path(args.out) if args.out else default_out(args.src)
    sources = {"the source": args.src if Path(args.src).exists() else None,
               "--key-map": args.key_map, "--config": args.config, "--tokenizer": args.tokenizer}
    check_out(out, overwrite=args.overwrite, protect=sources)
    is_state_dict = Path(args.src).suffix in (".npz", ".safetensors") or any(
        x is not None for x in (args.key_map, args.config, args.tokenizer)
    )
    if is_state_dict and args.dtype != "float16":
        from ..errors import SpecDecError

        raise SpecDecError(f"--dtype {args.dtype}: StoryLM store folders hold float16 weights; --dtype applies to "
                           "GPT-Neo sources")
    if is_state_dict:
        path = convert_state_dict(args.src, out, key_map=args.key_map, config=args.config, tokenizer=args.tokenizer,
                                  overwrite=args.overwrite)
    else:
        path = convert_gpt_neo(args.src, out, overwrite=args.overwrite, dtype=args.dtype)
    config = json.loads((path / CONFIG).read_text())
    print(f"wrote {path} (model_type {config['model_type']}, {config.get('parameters', 0):,} parameters, {config.get('dtype', 'float16')})")
    return 0


def _convert_mtp(args) -> int:
    if any(x is not None for x in (args.key_map, args.config, args.tokenizer)):
        from ..errors import SpecDecError

        raise SpecDecError("--mtp-only reads a checkpoint folder or hub id; --key-map, --config and --tokenizer do not apply")
    out = Path(args.out) if args.out else Path(str(default_out(args.src)) + "-mtp")
    check_out(out, overwrite=args.overwrite, protect={"the source": args.src if Path(args.src).exists() else None})
    path = convert_mtp_only(args.src, out, dtype=args.dtype, q_bits=args.q_bits, q_group_size=args.q_group_size,
                            overwrite=args.overwrite)
    config = json.loads((path / CONFIG).read_text())
    stored = f"{args.q_bits}-bit" if args.q_bits else config["dtype"]
    print(f"wrote {path} ({config['family']} MTP layer, {len(config['source_tensors'])} tensors from "
          f"{len(config['shards_read'])} of {config['shards_total']} shards, {stored})")
    return 0
