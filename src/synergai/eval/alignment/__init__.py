"""The perception-alignment benchmark (SynergAI Tables III and IV, and Table A.2) on real perception errors.

Modules, in the order a run uses them:

* :mod:`~synergai.eval.alignment.matching`: predictions matched to ground truth, the label table, and
  the repairable misperceptions (:class:`~synergai.eval.alignment.matching.Correction`);
* :mod:`~synergai.eval.alignment.questions`: question templates and the answer a graph implies;
* :mod:`~synergai.eval.alignment.tasks`: the generated alignment tasks and SynergAI's Table A.2
  (``table_a2.json``, package data);
* :mod:`~synergai.eval.alignment.judge`: the rule-based verdicts and the simulated user who corrects
  the robot (it never imports the agent: a judge shares no code with what it judges);
* :mod:`~synergai.eval.alignment.run`: loading, the dialogues through a real agent session, resuming;
* :mod:`~synergai.eval.alignment.report`: Tables III / IV metrics with confidence intervals, report.md.
"""
