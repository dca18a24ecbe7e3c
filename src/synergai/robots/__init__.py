"""synergai.robots: robot modes over scene graphs.

* ``synergai.robots.tabletop`` — MultiTalk: a Planner, an Analyzer (rules, then the model's critique) and a
  headless pybullet simulator of a Franka arm at a table, whose perception builds a scene graph.
* ``synergai.robots.team`` — MHRC: Alice, Bob and David, each an LLM agent, acting in a simulated house.
* ``synergai.robots.task_file`` / ``synergai.robots.goals`` — tasks as data (JSON files, the paper tasks
  and a suite ship in ``synergai/robots/tasks/``) and the one generic goal checker.

Sub-packages are imported on use (the tabletop imports pybullet, which prints a banner). Knows nothing
about the GUI.
"""
