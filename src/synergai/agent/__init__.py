"""synergai.agent layer."""
