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


class InterruptedRun(SpecDecError):
    """A long job stopped by Ctrl-C after saving what it could (exit code 130)."""

    exit_code = 130


class TrainingDiverged(SpecDecError):
    """A non-finite loss or weight: the run stops and saves nothing from that state."""


class MissingMTPError(ModelLoadError):
    """A checkpoint asked for its MTP layers that holds none."""


class UnknownMTPFamilyError(SpecDecError):
    """A model family with no native MTP support."""


class MTPShapeError(ModelLoadError):
    """MTP tensors whose names or shapes do not fit the layer the config describes."""


class PeerLost(SpecDecError):
    """Another process of a sharded run stopped (Ctrl-C, an error, a lost link): this one stops too (exit 1)."""

    exit_code = 1
