"""synergai.eval layer."""
