"""`python -m mlx_specdec.convert`: a GPT-Neo folder or hub id, or a StoryLM state dict, into the model store."""

from __future__ import annotations

import json
from pathlib import Path

from ..convert import CONFIG, convert_gpt_neo, convert_state_dict, default_out
from ..models.folders import check_out
from .common import Parser, run_main


def main(argv=None) -> int:
    ap = Parser(
        prog="python -m mlx_specdec.convert",
        description="Convert a Hugging Face GPT-Neo folder / hub repo id, or a StoryLM state dict, into the model store.",
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
    args = ap.parse_args(argv)
    return run_main(_convert, args)


def _convert(args) -> int:
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
