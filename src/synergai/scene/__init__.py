"""synergai.scene layer."""
