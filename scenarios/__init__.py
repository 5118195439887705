"""looplab scenarios."""
