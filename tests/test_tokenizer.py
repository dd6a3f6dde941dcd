"""StoryTokenizer: round trips, fixed special ids, fingerprints, refusals."""

import hashlib

import mlx.core as mx
import pytest

from mlx_specdec.data import iter_stories
from mlx_specdec.errors import IncompatibleModelsError, ModelLoadError, SpecDecError
from mlx_specdec.models.tokenizer import StoryTokenizer, check_same_tokenizer


@pytest.fixture(scope="session")
def tok_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("tokenizers")


@pytest.fixture(scope="session")
def tok(tok_dir):
    return StoryTokenizer.train(iter_stories("train", 300, seed=0), tok_dir / "t400.model", vocab_size=400)


@pytest.fixture(scope="session")
def tok500(tok_dir):
    return StoryTokenizer.train(iter_stories("train", 300, seed=0), tok_dir / "t500.model", vocab_size=500)


def test_vocab_size_is_the_requested_size(tok, tok500):
    assert tok.vocab_size == 400 == len(tok)
    assert tok500.vocab_size == 500


def test_special_ids_are_fixed(tok):
    assert (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id) == (0, 1, 2, 3)
    assert tok.bos_token_id == 2 and tok.eos_token_id == 3 and tok.eos_token_ids == {3}


def test_encode_adds_bos_by_default_and_eos_on_request(tok):
    plain = tok.encode("Once upon a time", bos=False)
    assert tok.encode("Once upon a time") == [2] + plain
    assert tok.encode("Once upon a time", bos=True, eos=True) == [2] + plain + [3]
    assert all(i > 3 for i in plain)


@pytest.mark.parametrize("text", [
    "Once upon a time, there was a little girl named Lily.",
    "  two leading spaces, a tab\there and\nnew lines\n\n",
    "café, naïve, Zoë — “quotes” … 日本語のテキスト 😀🐱 ✓",
    "digits 1234567890 and symbols <|endoftext|> {}[]#@~^",
    "",
])
def test_any_text_round_trips(tok, text):
    assert tok.decode(tok.encode(text, bos=True, eos=True)) == text


def test_unseen_characters_use_byte_pieces_not_unk(tok):
    ids = tok.encode("a🐱", bos=False)
    assert tok.unk_id not in ids
    byte_pieces = [tok.id_to_piece(i) for i in ids if tok.id_to_piece(i).startswith("<0x")]
    assert byte_pieces == ["<0xF0>", "<0x9F>", "<0x90>", "<0xB1>"]  # the emoji's UTF-8 bytes


def test_bundled_story_round_trips_and_compresses(tok):
    story = next(iter_stories("valid", 1))
    ids = tok.encode(story)
    assert tok.decode(ids) == story
    assert len(ids) < 0.7 * len(story)  # even 140 merges make pieces longer than characters


def test_decode_skips_special_ids_and_accepts_mx_arrays(tok):
    body = tok.encode("The cat sat.", bos=False)
    ids = [tok.pad_id, tok.bos_id] + body + [tok.eos_id, tok.pad_id]
    assert tok.decode(ids) == "The cat sat."
    assert tok.decode(mx.array(ids)) == "The cat sat."


def test_decode_rejects_ids_outside_the_vocabulary(tok):
    with pytest.raises(SpecDecError, match="outside the vocabulary"):
        tok.decode([5, tok.vocab_size])


def test_fingerprint_is_sha256_of_the_file_and_stable_across_loads(tok):
    digest = hashlib.sha256(tok.path.read_bytes()).hexdigest()
    again = StoryTokenizer(tok.path)
    assert tok.fingerprint == again.fingerprint == digest[:16]
    assert again.encode("A red ball.") == tok.encode("A red ball.")


def test_fingerprints_differ_for_different_vocab_sizes(tok, tok500):
    assert tok.fingerprint != tok500.fingerprint


def test_training_is_deterministic(tok, tok_dir):
    again = StoryTokenizer.train(iter_stories("train", 300, seed=0), tok_dir / "again.model", vocab_size=400)
    assert again.fingerprint == tok.fingerprint


def test_check_same_tokenizer_accepts_equal_fingerprints(tok):
    check_same_tokenizer(tok.fingerprint, tok.fingerprint, "storylm-30m", "storylm-1m")


def test_check_same_tokenizer_refusal_names_both_models_and_fingerprints(tok, tok500):
    with pytest.raises(IncompatibleModelsError) as err:
        check_same_tokenizer(tok.fingerprint, tok500.fingerprint, "storylm-30m", "other-1m")
    msg = str(err.value)
    assert "\n" not in msg
    assert "'other-1m'" in msg and "'storylm-30m'" in msg
    assert tok.fingerprint in msg and tok500.fingerprint in msg
    assert msg.index("other-1m") < msg.index(tok500.fingerprint) < msg.index("storylm-30m") < msg.index(tok.fingerprint)


def test_missing_model_file_is_a_one_line_load_error(tmp_path):
    with pytest.raises(ModelLoadError, match="does not exist") as err:
        StoryTokenizer(tmp_path / "nope.model")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("payload", [b"", b"this is not a sentencepiece model\n" * 10, bytes(range(256))])
def test_corrupt_model_file_is_a_one_line_load_error(tmp_path, payload):
    bad = tmp_path / "tokenizer.model"
    bad.write_bytes(payload)
    with pytest.raises(ModelLoadError) as err:
        StoryTokenizer(bad)
    assert "\n" not in str(err.value) and "tokenizer.model" in str(err.value)


def test_truncated_model_file_is_a_load_error(tok, tmp_path):
    bad = tmp_path / "cut.model"
    bad.write_bytes(tok.path.read_bytes()[: tok.path.stat().st_size // 2])
    with pytest.raises(ModelLoadError):
        StoryTokenizer(bad)


def test_train_reads_at_most_max_texts(tmp_path):
    pulled = []

    def texts():
        for i, story in enumerate(iter_stories("train", None)):
            if i >= 200:
                raise AssertionError("trainer pulled past max_texts")
            pulled.append(story)
            yield story

    t = StoryTokenizer.train(texts(), tmp_path / "m.model", vocab_size=350, max_texts=200)
    assert len(pulled) == 200 and t.vocab_size == 350


def test_train_writes_the_model_file_atomically(tok_dir, tok):
    leftovers = [p.name for p in tok_dir.iterdir() if p.suffix == ".tmp" or p.suffix == ".vocab"]
    assert leftovers == []
    assert tok.path.is_file()


def test_train_refuses_a_too_small_vocab_and_no_texts(tmp_path):
    with pytest.raises(SpecDecError, match="vocab_size"):
        StoryTokenizer.train(["a story"], tmp_path / "x.model", vocab_size=100)
    with pytest.raises(SpecDecError, match="vocab_size 300 is too small for these texts.*at least 3"):
        StoryTokenizer.train(iter_stories("train", 200), tmp_path / "z.model", vocab_size=300)
    with pytest.raises(SpecDecError, match="no texts"):
        StoryTokenizer.train([], tmp_path / "y.model", vocab_size=400)
    assert not (tmp_path / "y.model").exists()
