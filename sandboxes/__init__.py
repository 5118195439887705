"""looplab sandboxes."""
