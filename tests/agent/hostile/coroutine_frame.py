# Tries: cr_frame of a coroutine object.
# Harm: the host's frames become reachable.
# ruff: noqa
async def coro():
    return 1

c = coro()
print("ESCAPED", c.cr_frame.f_back)
