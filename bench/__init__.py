"""The benchmark harness: `python -m bench` (see bench/cli.py).

Measures plain decoding, our speculative decoding with every available
drafter, and mlx-lm's own generators on the same models and prompts in one
run, and writes tokens/s next to the accounting (tokens per target pass,
acceptance) with the cost model's predictions beside the measured speedups.
"""
