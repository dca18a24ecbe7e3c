# Tries: monkeypatch an API object's class so later host calls misbehave.
# Harm: trusted API classes are changed.
# ruff: noqa
cls = type(list(scene())[0])
cls.category = "ESCAPED"
print(list(scene())[0].category)
