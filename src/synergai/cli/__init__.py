"""synergai.cli layer."""
