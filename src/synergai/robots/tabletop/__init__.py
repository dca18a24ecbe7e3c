"""MultiTalk's tabletop arm: plan language, rule checks, perception, pybullet simulator, the loop."""
