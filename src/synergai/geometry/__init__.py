"""synergai.geometry layer."""
