"""The looplab benchmark: small terminal tasks with hidden verifiers, clean and hostile."""
