# Tries: setattr/delattr on an API function to plant attributes.
# Harm: trusted API objects are changed.
# ruff: noqa
setattr(scene, "x", 1)
delattr(scene, "x")
print("ESCAPED")
