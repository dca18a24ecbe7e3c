"""MHRC's heterogeneous team: the house world, the paper's flat, per-robot prompts, the team loop."""
