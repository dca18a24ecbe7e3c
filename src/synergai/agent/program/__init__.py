"""Program mode (LLM-TPC's Think-Program-reCtify): scene API, prompts, static check, sandbox and loop."""
