"""Program mode (LLM-TPC's Think-Program-reCtify): the scene API programs call (``api``), the prompts
(``prompt``), the static check before a run (``check``), the sandbox (``sandbox``, ``sandbox_child``) and
the loop with its result type (``loop``)."""
