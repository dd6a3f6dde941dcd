"""bench.demo: the demo's commands are read from the Makefile's recipe, variables and all."""

from bench import demo


def test_the_demo_commands_are_the_makefiles():
    """Every `python -m mlx_specdec.generate` the demo recipe runs, in order, with DEMO_PROMPT and CHAT_PROMPT
    substituted (CHAT_PROMPT spans continuation lines), and none of the echo line that shows the chat command."""
    commands = demo.demo_commands()
    pairs = [(d["model"], d["draft_model"], d["k"]) for d in map(demo.describe, commands)]
    assert pairs == [("storylm-5m", "storylm-5m-mtp", "auto"), ("storylm-30m", "storylm-1m", "1"),
                     ("storylm-5m-hybrid", "storylm-1m-distilled-hybrid", "auto"),
                     ("smollm2-135m-instruct", "prompt-lookup", "auto")]
    assert all("--compare" in c and "$(" not in " ".join(c) for c in commands)
    assert demo.describe(["--num-draft-tokens", "3"])["k"] == "3"  # the long name of -k
    assert commands[0][commands[0].index("--prompt") + 1] == "Once upon a time, there was a little girl named Lily."
    chat = commands[3][commands[3].index("--prompt") + 1]
    assert chat.startswith("Repeat this paragraph exactly: The cat sat") and chat.endswith("a ball of yarn.")
    assert "  " not in chat  # continuation lines joined with one space, as make joins them


def test_a_real_target_not_converted_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "ROOT", tmp_path)
    (tmp_path / "models" / "real" / "smollm2-135m-instruct").mkdir(parents=True)
    assert demo.available(["--model", "storylm-30m"])
    assert not demo.available(["--model", "smollm2-135m-instruct"])
    (tmp_path / "models" / "real" / "smollm2-135m-instruct" / "model.safetensors").write_bytes(b"")
    assert demo.available(["--model", "smollm2-135m-instruct"])


def test_render_reports_each_round_the_lowest_and_whether_every_output_was_identical():
    runs = [{"model": "storylm-5m", "draft_model": "storylm-5m-mtp", "k": "auto",
             "rounds": [{"speedup": s, "identical": True} for s in (0.98, 1.2, 1.3)]}]
    header = {"rounds": 3, "date": "2026-12-07", "machine": "m", "cpu": "c", "commit": "abc", "command": "cmd"}
    text = demo.render({"header": header, "runs": runs})
    row = next(line for line in text.splitlines() if line.startswith("| storylm-5m"))
    assert row == "| storylm-5m | storylm-5m-mtp | auto | 0.98x | 1.20x | 1.30x | 0.98x | 1.20x | yes |"
    runs[0]["rounds"][1]["identical"] = False
    assert demo.render({"header": header, "runs": runs}).count("| NO |") == 1


def test_a_failed_run_is_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    def fail(args, cache):
        raise RuntimeError("a demo run failed (--model x ...): SpecDecError: no model named x")

    monkeypatch.setattr(demo, "run_once", fail)
    assert demo.main(["--rounds", "1", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bench.demo: a demo run failed") and "\n" not in err
    assert not (tmp_path / "out").exists()
