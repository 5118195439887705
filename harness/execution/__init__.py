"""Pieces of tool execution (seed 003): the wave scheduler, the turn budget with per-tool
deadlines and the late-write gate, and idempotency-aware replay control. ``harness.executor``
composes them; each is small and tested on its own."""
