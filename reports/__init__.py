"""looplab reports."""
