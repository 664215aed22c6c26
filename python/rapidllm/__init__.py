"""rapidllm: predict LLM training and inference step time, memory and energy on GPU clusters.

The Python face of the ``rapidllm`` command line: the same C++ library, the same numbers
(each function returns what ``rapidllm <command> --format json`` prints, as a dict).

    >>> import rapidllm
    >>> r = rapidllm.predict("configs/hardware/A100_SXM4_80GB.yaml", "configs/models/llama2-7b.yaml",
    ...                      dp=8, micro_batch_size=1, dp_zero_stage=1)
    >>> round(r["step_time_s"], 1)
    17.6

Configs are file paths, dicts in the same schema, or :class:`ConfigText`; overrides are
keyword arguments named from the settings registry (:func:`keywords`) or ``set=`` dicts.
Errors are :class:`ConfigError` (a ``ValueError``; file:line, key path and hint) and
:class:`InfeasibleError`; the library's warnings are :class:`RapidllmWarning`.
``rapidllm.plot`` draws the results (matplotlib). Reference: docs/python.md.
"""

from . import _errors  # first: the compiled module raises its classes
from ._errors import ConfigError, Error, InfeasibleError, RapidllmWarning
from . import _core
from ._api import (Scenario, collective, engine_profiles, load_scenario, predict, serve, settings, sweep,
                   validate, validation_scenario)
from ._frames import to_frame
from ._overrides import keywords
from ._sources import ConfigText, HfModel, import_hf

__version__: str = _core.__version__

__all__ = [
    "ConfigError", "ConfigText", "Error", "HfModel", "InfeasibleError", "RapidllmWarning", "Scenario",
    "collective", "engine_profiles", "import_hf", "keywords", "load_scenario", "predict", "serve", "settings",
    "sweep", "to_frame", "validate", "validation_scenario", "__version__",
]
