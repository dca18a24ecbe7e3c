"""SynergAI: human-robot collaboration grounded in 3D scene graphs."""

__version__ = "0.1.0"
