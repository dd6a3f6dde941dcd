"""The bundled story generator and the TinyStories readers."""

import itertools
import json
import random
import re

import pytest

from mlx_specdec.data import iter_stories, iter_texts
from mlx_specdec.data.generator import generate_story
from mlx_specdec.data.stories import PLOTS, Story, count_sentences, distinct_words
from mlx_specdec.errors import SpecDecError

# ---------------------------------------------------------------------------
# Bundled generator
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_20k():
    # The first 38 plots' stories, as the stream drew them before the corpus grew: these tests pin those
    # plots (tests/test_plots_*.py, test_generator.py and test_written.py cover the rest of the corpus).
    return [generate_story(random.Random(f"0:train:{i}"), PLOTS) for i in range(20_000)]


def test_same_seed_gives_the_same_stories():
    assert list(iter_stories("train", 200, seed=3)) == list(iter_stories("train", 200, seed=3))


def test_different_seeds_give_different_stories():
    a = list(iter_stories("train", 200, seed=0))
    b = list(iter_stories("train", 200, seed=1))
    assert sum(x == y for x, y in zip(a, b)) == 0


def test_story_i_can_be_regenerated_alone():
    stream = list(iter_stories("valid", 10, seed=5))
    assert generate_story(random.Random("5:valid:7")) == stream[7]


def test_train_and_valid_do_not_overlap():
    from mlx_specdec.data.written import written_stories

    train = set(iter_stories("train", 2000)) - set(written_stories())  # written ones repeat by design
    valid = set(iter_stories("valid", 2000))
    assert len(train) > 1400 and len(valid) > 1990  # and the generated stories within a split hardly repeat
    assert train.isdisjoint(valid)


def test_n_none_streams_forever_and_n_caps():
    assert len(list(itertools.islice(iter_stories("train", None), 2500))) == 2500
    assert len(list(iter_stories("train", 7))) == 7
    assert list(iter_stories("train", 0)) == []


def test_at_least_1500_distinct_words_in_20k_stories(sample_20k):
    assert len(distinct_words(sample_20k)) >= 1500


def test_dozens_of_plot_shapes_all_used(sample_20k):
    assert len(PLOTS) >= 30
    # every plot has a template only it uses; count plots by running each alone
    for plot in PLOTS:
        for i in range(60):
            s = Story(random.Random(f"{plot.__name__}:{i}"))
            plot(s)
            text = s.text()
            assert "{" not in text and "}" not in text, (plot.__name__, text)
            assert "  " not in text and text == text.strip()


def test_sentences_and_length_are_in_range(sample_20k):
    sample = sample_20k[:3000]
    assert all(3 <= count_sentences(t) <= 15 for t in sample)
    words = [len(t.split()) for t in sample]
    in_range = sum(80 <= w <= 200 for w in words) / len(words)
    assert in_range >= 0.8, in_range
    assert max(words) <= 250


def test_pronoun_verb_agreement(sample_20k):
    bad = re.compile(r"\b(?:[Hh]e|[Ss]he|[Ii]t) were\b|\b[Tt]hey (?:was|has|is)\b|\b(?:[Hh]e|[Ss]he) (?:have|are)\b")
    offenders = [t for t in sample_20k[:5000] if bad.search(t)]
    assert offenders == []


def test_they_heroes_are_used_and_agree():
    they = [t for t in (generate_story(random.Random(f"2:train:{i}"), PLOTS) for i in range(3000))
            if re.search(r"\bkid (?:named|called) ", t)]
    assert len(they) > 50
    assert any(" they were " in t or "They were " in t or " their " in t for t in they)


def test_hero_named_in_the_opening_stays_in_the_story(sample_20k):
    named = re.compile(r"(?:named|called) ([A-Z][a-z]+)")
    checked = 0
    for t in sample_20k[:2000]:
        first = count_sentences(t) and re.split(r"(?<=[.!?])\s", t, 1)[0]
        m = named.search(first)
        if m:
            checked += 1
            assert t.count(m.group(1)) >= 2, t
    assert checked > 1000


@pytest.mark.slow
def test_streams_2mb_of_distinct_stories_lazily():
    # the trainer streams tens of MB: an unbounded split is a generator, never a list
    stream, size, n, seen = iter_stories("valid", None, seed=9), 0, 0, set()  # (train repeats written stories)
    assert iter(stream) is stream
    for t in stream:
        size, n = size + len(t), n + 1
        seen.add(t)
        if size >= 2_000_000:
            break
    assert size >= 2_000_000 and len(seen) >= 0.99 * n


def test_split_must_be_a_non_empty_string():
    with pytest.raises(SpecDecError, match="split"):
        next(iter_stories("", 1))


# ---------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------

STORIES = ["Once upon a time, Tom had a red ball.\nHe played with it.", "Lily saw a cat. The cat was soft.",
           "Ben ran fast. \"I won!\" he said."]


def write_txt(path, stories):
    path.write_text("".join(s + "\n<|endoftext|>\n" for s in stories), encoding="utf-8")
    return path


def test_txt_with_endoftext_separators(tmp_path):
    f = write_txt(tmp_path / "TinyStories-train.txt", STORIES)
    assert list(iter_texts(str(f))) == STORIES


def test_txt_without_a_trailing_separator_and_with_blank_stories(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("<|endoftext|>\n" + STORIES[0] + "\n<|endoftext|>\n\n<|endoftext|>\n" + STORIES[1] + "\n")
    assert list(iter_texts(str(f))) == STORIES[:2]


def test_json_list_with_text_or_story_fields(tmp_path):
    f = tmp_path / "data00.json"
    f.write_text(json.dumps([{"story": STORIES[0], "summary": "x"}, {"text": STORIES[1]}, STORIES[2]]))
    assert list(iter_texts(str(f))) == STORIES


def test_jsonl_with_text_field(tmp_path):
    f = tmp_path / "valid.jsonl"
    f.write_text("\n".join(json.dumps({"text": s}) for s in STORIES) + "\n\n")
    assert list(iter_texts(str(f), split="valid")) == STORIES


def test_directory_picks_the_split_file_by_name(tmp_path):
    write_txt(tmp_path / "TinyStoriesV2-GPT4-train.txt", STORIES[:2])
    write_txt(tmp_path / "TinyStoriesV2-GPT4-valid.txt", STORIES[2:])
    (tmp_path / "README.md").write_text("not a story file")
    assert list(iter_texts(str(tmp_path), "train")) == STORIES[:2]
    assert list(iter_texts(str(tmp_path), "valid")) == STORIES[2:]
    assert list(iter_texts(str(tmp_path), "validation")) == STORIES[2:]


def test_directory_with_validation_jsonl(tmp_path):
    (tmp_path / "train.jsonl").write_text(json.dumps({"text": STORIES[0]}) + "\n")
    (tmp_path / "validation.jsonl").write_text(json.dumps({"text": STORIES[1]}) + "\n")
    assert list(iter_texts(str(tmp_path), "valid")) == [STORIES[1]]


def test_directory_of_unnamed_shards_is_training_data(tmp_path):
    (tmp_path / "data00.json").write_text(json.dumps([{"story": STORIES[0]}]))
    (tmp_path / "data01.json").write_text(json.dumps([{"story": STORIES[1]}, {"story": STORIES[2]}]))
    assert list(iter_texts(str(tmp_path), "train")) == STORIES
    with pytest.raises(SpecDecError, match="has no valid file"):
        iter_texts(str(tmp_path), "valid")


def test_train_file_path_with_valid_split_uses_the_sibling_file(tmp_path):
    train = write_txt(tmp_path / "TinyStories-train.txt", STORIES[:2])
    write_txt(tmp_path / "TinyStories-valid.txt", STORIES[2:])
    assert list(iter_texts(str(train), "valid")) == STORIES[2:]


def test_train_file_without_a_valid_sibling_is_refused_for_valid(tmp_path):
    train = write_txt(tmp_path / "TinyStories-train.txt", STORIES)
    with pytest.raises(SpecDecError, match="no matching valid file"):
        iter_texts(str(train), "valid")


def test_n_limits_file_stories(tmp_path):
    f = write_txt(tmp_path / "s.txt", STORIES)
    assert list(iter_texts(str(f), n=2)) == STORIES[:2]
    assert list(iter_texts(str(f), n=0)) == []


def test_bundled_corpus_matches_iter_stories():
    assert list(iter_texts("bundled", "valid", 5, seed=4)) == list(iter_stories("valid", 5, seed=4))


# ---------------------------------------------------------------------------
# Errors: one line, naming the bad value
# ---------------------------------------------------------------------------


def one_line_error(fn, match):
    with pytest.raises(SpecDecError, match=match) as err:
        fn()
    assert "\n" not in str(err.value)
    return str(err.value)


@pytest.mark.parametrize("spec", ["", "   ", "hub:", "hub:noslash", "hub:a/b/c", "/no/such/corpus", "bundle"])
def test_bad_corpus_spec(spec):
    one_line_error(lambda: iter_texts(spec), "corpus")


def test_non_string_corpus_spec():
    one_line_error(lambda: iter_texts(42), "corpus must be")


def test_bad_split_and_n():
    one_line_error(lambda: iter_texts("bundled", "test"), "split must be 'train' or 'valid'")
    one_line_error(lambda: iter_texts("bundled", "train", -1), "n must be")


def test_file_with_no_stories(tmp_path):
    f = tmp_path / "empty-train.txt"
    f.write_text("<|endoftext|>\n\n<|endoftext|>\n")
    msg = one_line_error(lambda: list(iter_texts(str(f))), "no stories found")
    assert "empty-train.txt" in msg


def test_empty_directory_and_unsupported_suffix(tmp_path):
    one_line_error(lambda: iter_texts(str(tmp_path)), "holds no .txt, .json or .jsonl")
    csv = tmp_path / "stories.csv"
    csv.write_text("a,b\n")
    one_line_error(lambda: list(iter_texts(str(csv))), "expected one of .txt, .json, .jsonl")


def test_malformed_json_and_jsonl(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"text\": ")
    one_line_error(lambda: list(iter_texts(str(bad))), "not valid JSON")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps([{"title": "no text here"}]))
    one_line_error(lambda: list(iter_texts(str(wrong))), "'text' or 'story'")
    badl = tmp_path / "bad.jsonl"
    badl.write_text(json.dumps({"text": "ok"}) + "\nnot json\n")
    one_line_error(lambda: list(iter_texts(str(badl))), "line 2 is not valid JSON")


def test_txt_without_separators_is_refused(tmp_path):
    f = tmp_path / "novel.txt"
    f.write_text("All work and no play.\n" * 60_000)  # > 1 MiB without a separator
    one_line_error(lambda: list(iter_texts(str(f))), "no '<|endoftext|>' separator")


def test_hub_offline_fails_fast_with_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty cache: nothing to fall back on
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    for spec in ("hub", "hub:roneneldan/TinyStories"):
        msg = one_line_error(lambda: list(iter_texts(spec, n=1)), "HF_HUB_OFFLINE")
        assert "roneneldan/TinyStories" in msg


def test_the_written_share_is_part_of_the_bundled_spec():
    """bundled:written=S draws each training story from the written ones with probability S; the
    default spec is S = 0.3, and the valid split never holds a written story."""
    from mlx_specdec.data.written import written_stories

    written = set(written_stories())
    assert list(iter_texts("bundled", "train", n=200)) == list(iter_texts("bundled:written=0.3", "train", n=200))
    assert all(t in written for t in iter_texts("bundled:written=1", "train", n=100))
    assert not any(t in written for t in iter_texts("bundled:written=0", "train", n=300))
    share = sum(t in written for t in iter_texts("bundled:written=0.6", "train", n=2000)) / 2000
    assert abs(share - 0.6) < 4 * (0.6 * 0.4 / 2000) ** 0.5  # four standard errors of a binomial proportion
    assert list(iter_texts("bundled:written=0.6", "valid", n=50)) == list(iter_texts("bundled", "valid", n=50))


def test_retell_tells_a_share_of_training_stories_twice_and_leaves_the_rest_alone():
    """bundled:...,retell=R makes a training story into story + a request + the same story with probability
    R, from its own generator: every other story is the one the spec without retell gives, and valid and
    shapes are never retold."""
    from mlx_specdec.data.generator import RETELL_REQUESTS

    n = 2000
    plain = list(iter_texts("bundled:written=0.6", "train", n=n))
    told = list(iter_texts("bundled:written=0.6,retell=0.1", "train", n=n))
    assert list(iter_texts("bundled:written=0.6,retell=0", "train", n=n)) == plain
    retold = 0
    for a, b in zip(plain, told):
        if a == b:
            continue
        retold += 1
        request = next(r for r in RETELL_REQUESTS if f"\n\n{r}\n" in b)
        assert b == f"{a}\n\n{request}\n{a}"
    assert abs(retold / n - 0.1) < 4 * (0.1 * 0.9 / n) ** 0.5  # four standard errors of a binomial proportion
    assert len({r for r in RETELL_REQUESTS for t in told if f"\n\n{r}\n" in t}) == len(RETELL_REQUESTS)
    for split in ("valid", "shapes"):
        assert list(iter_texts("bundled:retell=1", split, n=40)) == list(iter_texts("bundled", split, n=40))
    assert list(iter_texts("bundled:retell=0.1,written=0.6", "train", n=50)) == told[:50]  # keys in any order


def test_passage_retells_only_the_leading_sentences_that_fit_in_its_words():
    """passage=N retells a story's leading whole sentences, as many as fit in N words (one at least), and
    tells them first too; the stories it does not retell are untouched."""
    from mlx_specdec.data.generator import RETELL_REQUESTS

    n = 400
    whole = list(iter_texts("bundled:written=0.6,retell=0.3", "train", n=n))
    short = list(iter_texts("bundled:written=0.6,retell=0.3,passage=40", "train", n=n))
    plain = list(iter_texts("bundled:written=0.6", "train", n=n))
    assert list(iter_texts("bundled:written=0.6,retell=0.3,passage=0", "train", n=n)) == whole
    cut = 0
    for story, long, doc in zip(plain, whole, short):
        if long == story:
            assert doc == story
            continue
        request = next(r for r in RETELL_REQUESTS if f"\n\n{r}\n" in doc)
        passage = doc.split(f"\n\n{request}\n")[0]
        assert doc == f"{passage}\n\n{request}\n{passage}" and long == f"{story}\n\n{request}\n{story}"
        assert story.startswith(passage) and (passage == story or story[len(passage)].isspace())
        sentences = re.split(r"(?<=[.!?])\s+", story.strip())
        kept = len(re.split(r"(?<=[.!?])\s+", passage))
        assert re.split(r"(?<=[.!?])\s+", passage) == sentences[:kept]  # whole leading sentences, as written
        assert kept == 1 or len(passage.split()) <= 40  # over N words only when one sentence is
        if kept < len(sentences):  # and the next sentence would not have fitted
            cut += 1
            assert len(passage.split()) + len(sentences[kept].split()) > 40
    assert cut > 50  # most stories are longer than 40 words


@pytest.mark.parametrize("spec", ["bundled:written=1.5", "bundled:written=x", "bundled:shapes=0.2", "bundled:",
                                  "bundled:retell=2", "bundled:written=0.6,written=0.3", "bundled:written=0.6,",
                                  "bundled:retell=0.1,passage=-3", "bundled:retell=0.1,passage=0.5"])
def test_a_bad_bundled_spec_is_one_line_naming_the_form(spec):
    with pytest.raises(SpecDecError) as e:
        iter_texts(spec)
    message = str(e.value)
    assert "expected 'bundled:written=<share in [0, 1]>[,retell=<share in [0, 1]>[,passage=<words>]]'" in message
    assert "\n" not in message
