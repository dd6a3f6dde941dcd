"""A tiny Hugging Face tokenizer with a chat template, built offline in seconds,
and an mlx-lm llama folder that uses it (for the chat-template, CLI and API tests)."""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% if greeting is defined %}{{ greeting }}"
    "{% endif %}{% endif %}"
)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
VOCAB = 320
TEXTS = [
    "Once upon a time there was a little cat who liked to sit on the mat.",
    "The dog ran to the park and played with a red ball all day long.",
    "Hello! How are you today? I am fine, thank you. What is your name?",
    "system user assistant think",
] * 8


def make_tokenizer(folder: Path, chat_template: str | None = CHAT_TEMPLATE) -> Path:
    """Byte-level BPE trained on a few sentences; <|endoftext|> is eos_token, <|im_end|> ends a turn."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(TEXTS, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    if chat_template is not None:
        fast.chat_template = chat_template
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(str(folder))
    return folder


def make_model_folder(folder: Path, seed: int = 0, hidden: int = 64, layers: int = 2,
                      chat_template: str | None = CHAT_TEMPLATE) -> Path:
    """A random llama in mlx-lm's folder format with the tiny tokenizer; config.json lists
    both <|endoftext|> and <|im_end|> as eos_token_id, as chat models do."""
    import mlx.core as mx
    from mlx_lm.models import llama
    from mlx_lm.utils import save_config, save_model

    make_tokenizer(folder, chat_template)
    from transformers import PreTrainedTokenizerFast

    ids = PreTrainedTokenizerFast.from_pretrained(str(folder)).convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>"])
    config = {
        "model_type": "llama", "hidden_size": hidden, "num_hidden_layers": layers,
        "intermediate_size": 2 * hidden, "num_attention_heads": 2, "num_key_value_heads": 1,
        "head_dim": 32, "rms_norm_eps": 1e-5, "vocab_size": VOCAB, "tie_word_embeddings": False,
        "max_position_embeddings": 512, "rope_theta": 10000.0, "eos_token_id": ids,
    }
    mx.random.seed(seed)
    model = llama.Model(llama.ModelArgs.from_dict(config))
    # Sharpen the random logits so greedy chains vary (a flat random head repeats one token).
    model.update({"lm_head": {"weight": model.lm_head.weight * 8.0}})
    save_model(folder, model)
    save_config(config, folder / "config.json")
    return folder
