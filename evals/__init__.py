"""looplab evals."""
