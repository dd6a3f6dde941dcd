"""One error type for everything a user can get wrong.

Messages are one line, name the offending value and say what was expected;
command-line entry points print them without a traceback.
"""


class SpecDecError(ValueError):
    """Bad input: a value, a file or a model pair that cannot be used."""


class IncompatibleModelsError(SpecDecError):
    """A drafter and a target whose token ids do not mean the same thing."""


class ModelLoadError(SpecDecError):
    """A model folder that is missing, incomplete, corrupt or inconsistent."""
