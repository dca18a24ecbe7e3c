# Tries: a class statement defining __str__ and __del__.
# Harm: hostile dunder methods run inside host formatting code.
# ruff: noqa
class Evil:
    def __del__(self):
        print("ESCAPED")

Evil()
