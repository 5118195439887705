"""Context compaction (seed 004 "compaction"): where to cut, how to summarise, what to verify.

``split`` finds pair-safe cuts, ``summarize`` asks the model (chunked, merged), ``render`` turns
messages into text, ``identifiers`` restores what a summary lost, ``compactor`` does one
compaction with its timeout and fallback, ``reset`` the full context reset. The control that
decides when is ``harness.controls.compaction``.
"""

from harness.compaction.compactor import COMPACTED_PREFIX, CompactionResult, Compactor
from harness.compaction.reset import CONTINUATION_PREFIX, context_reset

__all__ = ["COMPACTED_PREFIX", "CONTINUATION_PREFIX", "CompactionResult", "Compactor", "context_reset"]
