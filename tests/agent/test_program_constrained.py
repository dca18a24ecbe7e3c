"""Program mode under its grammar with scripted models: sent only to a model that enforces grammars, the
answer round after an output, and the OpenAI path untouched."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agent_scripting import room
from gbnf import engine

from synergai.agent.program import prompt as P
from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.geometry.frames import Viewpoint
from synergai.llm import ScriptedModel
from synergai.llm.openai_backend import OpenAIModel

NORTH = Viewpoint((2.0, 0.0, 1.2), (0.0, 1.0, 0.0))
CONSTRAINED = ProgramLimits(constrained=True)
COUNT = ('Thought: I count the chairs.\nAction: Program\nAction Input:\n```Python\n'
         'chairs = filter(object_set=scene(), category="chair")\nprint("chairs:", len(chairs))\n```')
ANSWER = "Thought: There are two chairs.\nAction: Final Answer\nAction Input: 2"


def test_a_model_that_enforces_grammars_gets_them_and_answers_with_a_program_that_ran() -> None:
    llm = ScriptedModel([COUNT, ANSWER], supports_grammar=True)
    result = ProgramLoop(llm, CONSTRAINED).run(room(), "How many chairs are there?", viewpoint=NORTH)
    assert result.constrained and result.short_answer == "2" and result.usage.calls == 2
    (ran,) = [t for t in result.trace if t["type"] == "program"]
    assert ran["ok"] and ran["stdout"].strip() == "chairs: 2"
    first, second = llm.requests
    assert P.STRING_RULE in first.messages[0]["content"]
    assert first.grammar and second.grammar and first.grammar != second.grammar
    assert "(program | final)" in first.grammar and "program ::=" not in second.grammar
    assert (first.max_tokens, second.max_tokens) == (CONSTRAINED.max_tokens, CONSTRAINED.answer_tokens)
    assert second.messages[-1]["content"] == f"Observation: chairs: 2\n{P.ANSWER_NOW}"
    llama = engine()
    if llama is not None:  # the scripted replies are sentences of the grammars they were asked under
        assert llama.matches(first.grammar, COUNT) and llama.matches(second.grammar, ANSWER)
        assert not llama.matches(second.grammar, COUNT)
        assert not llama.matches(first.grammar, COUNT.replace('"chair"', '"sofa"'))  # not in the room


def test_a_model_without_grammars_gets_none_and_the_loop_runs_as_before() -> None:
    llm = ScriptedModel([COUNT, ANSWER])  # supports_grammar False
    loop = ProgramLoop(llm, CONSTRAINED)
    result = loop.run(room(), "How many chairs are there?", viewpoint=NORTH)
    assert not loop.constrained and not result.constrained and result.short_answer == "2"
    assert [r.grammar for r in llm.requests] == [None, None]
    assert P.STRING_RULE not in llm.requests[0].messages[0]["content"]
    assert llm.requests[0].messages[0]["content"] == ProgramLoop(ScriptedModel([]))._system


def test_off_by_default_even_for_a_model_that_enforces_grammars() -> None:
    llm = ScriptedModel([COUNT, ANSWER], supports_grammar=True)
    result = ProgramLoop(llm).run(room(), "How many chairs are there?", viewpoint=NORTH)
    assert not ProgramLimits().constrained and not result.constrained
    assert [r.grammar for r in llm.requests] == [None, None]


def test_a_program_instead_of_the_answer_after_an_output_ends_in_the_typed_json_answer() -> None:
    llm = ScriptedModel([COUNT, COUNT.replace("len(chairs)", "len(chairs) + 0"),
                         '{"thought": "two chairs", "answer": 2}'])
    result = ProgramLoop(llm).run(room(), "How many chairs are there?", viewpoint=NORTH)
    assert result.short_answer == "2" and result.usage.calls == 3
    assert len([t for t in result.trace if t["type"] == "program"]) == 1  # the second program never ran
    assert any(t.get("error") == "no final answer after the program's output" for t in result.trace)
    assert llm.requests[-1].json_schema is not None and llm.requests[-1].grammar is None


def test_without_answer_after_output_a_second_program_may_follow() -> None:
    second = COUNT.replace("len(chairs)", "len(chairs) + 0")
    llm = ScriptedModel([COUNT, second, ANSWER])
    limits = ProgramLimits(answer_after_output=False)
    result = ProgramLoop(llm, limits).run(room(), "How many chairs are there?", viewpoint=NORTH)
    assert result.short_answer == "2" and len([t for t in result.trace if t["type"] == "program"]) == 2
    assert llm.requests[1].messages[-1]["content"] == "Observation: chairs: 2"
    assert {r.max_tokens for r in llm.requests} == {limits.max_tokens}


def test_the_openai_backend_sends_no_grammar_even_when_constrained_mode_is_asked_for(
        monkeypatch: Any) -> None:
    monkeypatch.setenv("SYNERGAI_TEST_KEY", "sk-test")
    model = OpenAIModel("fake-model", api_key_env="SYNERGAI_TEST_KEY", base_url="http://127.0.0.1:9/v1")
    sent: list[dict[str, Any]] = []
    replies = iter([COUNT, ANSWER])

    def create(**kwargs: Any) -> Any:
        sent.append(kwargs)
        message = SimpleNamespace(content=next(replies))
        usage = SimpleNamespace(prompt_tokens=100, completion_tokens=20, prompt_tokens_details=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=usage,
                               model="fake-model")

    monkeypatch.setattr(model._client.chat.completions, "create", create)
    result = ProgramLoop(model, CONSTRAINED).run(room(), "How many chairs are there?", viewpoint=NORTH)
    assert result.short_answer == "2" and not result.constrained
    assert len(sent) == 2 and not any("grammar" in k or "extra_body" in k for k in sent)
    model.close()
