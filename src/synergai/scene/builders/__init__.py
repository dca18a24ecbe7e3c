"""Builders: turn a source (an objects file, raw scans, point clouds, RGB-D) into scene objects."""

from synergai.scene.builders.objects_json import ObjectsFile, load_objects_file

__all__ = ["ObjectsFile", "load_objects_file"]
