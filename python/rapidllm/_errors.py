"""rapidllm's exceptions and warning class.

The compiled module raises these for the C++ library's errors (python/src/errors.cpp), so a
message reads exactly as the command line prints it after ``rapidllm: error:``.
"""

from __future__ import annotations


class Error(Exception):
    """Base of every rapidllm error (the C++ ``rapidllm::Error``)."""


class ConfigError(Error, ValueError):
    """A configuration mistake: a bad key, a bad value, a missing file, a wrong argument.

    The message is the CLI's: ``FILE:LINE:COL: key.path: problem`` and a ``hint:`` line.
    The parts are also attributes, to test or show separately.

    Attributes:
        file: the config file (or the name given to a dict, or ``FUNCTION()`` for an
            argument of a rapidllm function); empty for an override.
        line, column: 1-based position in the file; 0 when unknown.
        override: the ``a.b=v`` text when the value came from an override.
        key_path: the YAML key path (``parallelism.tp``) or the argument's name.
        problem: what is wrong.
        hint: how to fix it (may be empty).
    """

    def __init__(self, message: str, *, file: str = "", line: int = 0, column: int = 0, override: str = "",
                 key_path: str = "", problem: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.column = column
        self.override = override
        self.key_path = key_path
        self.problem = problem or message
        self.hint = hint


class InfeasibleError(Error, RuntimeError):
    """A well-formed scenario that cannot run (the CLI's exit 1): heads not divisible by
    TP, more ranks than the network holds, no room for a KV cache."""


class RapidllmWarning(UserWarning):
    """What the library warns about (the CLI's ``rapidllm: warning:`` lines): an uneven
    pipeline split, a setting the model cannot honour, a plan that does not fit in memory."""


def argument_error(function: str, argument: str, problem: str, hint: str = "") -> ConfigError:
    """A wrong argument of a rapidllm function, worded as the C++ side words its own."""
    message = f"{function}(): {argument}: {problem}" + (f"\n  hint: {hint}" if hint else "")
    return ConfigError(message, file=f"{function}()", key_path=argument, problem=problem, hint=hint)
