"""Errors of the geometry layer."""

from __future__ import annotations


class GeometryError(ValueError):
    """Bad geometric input: a malformed mesh or point file, a degenerate ray (one-line message)."""
