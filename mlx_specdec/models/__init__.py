"""Model code: StoryLM, StoryTokenizer, GPT-Neo, and the model store."""
