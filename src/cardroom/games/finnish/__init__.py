"""The Finnish 27 family: ``finnish27`` (fixed play to 27, a poker bonus) and ``21-24-27``
(the player hits or stands), which share their hands, totals and deal.

- :mod:`.hands`: Finnish totals, hit-to-target tables, the deal;
- :mod:`.finnish27`, :mod:`.twentyone_24_27`: the rules and the rounds;
- :mod:`.poker`: the poker evaluator with wild Jokers (finnish27's bonus);
- :mod:`.analysis`: exact analysis with replacement and the 21-24-27 solver;
- :mod:`.shoe`: exact analysis from the real shoe (on :mod:`.shoe_count`,
  :mod:`.shoe_kernel`, :mod:`.poker_shoe`, :mod:`.poker_odds`);
- :mod:`.kernel`: the compiled simulation (Numba; imported when asked for).
"""
