"""synergai.gui: the web GUI (viser) — see the scene, click to mark an object, chat with the agent."""

from __future__ import annotations

from synergai.gui.app import GuiApp, GuiHandle, serve

__all__ = ["GuiApp", "GuiHandle", "serve"]
