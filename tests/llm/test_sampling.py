"""The sampling policy the loops share: greedy, except the one call after a repeat."""

from synergai.llm.sampling import REPEAT_TEMPERATURE, Resampling


def test_one_sampled_call_after_a_repeat_then_greedy_again() -> None:
    policy = Resampling()
    assert policy.next() == 0.0
    policy.repeated()
    assert policy.next() == REPEAT_TEMPERATURE == 0.7
    assert policy.next() == 0.0
    hot = Resampling(1.0)
    hot.repeated()
    hot.repeated()
    assert (hot.next(), hot.next()) == (1.0, 0.0)
