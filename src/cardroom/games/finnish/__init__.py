"""The Finnish 27 family: ``finnish27`` (fixed play to 27, a poker bonus) and ``21-24-27``
(the player hits or stands), which share their hands, totals and deal.

- :mod:`.hands`: Finnish totals, hit-to-target tables, the deal;
- :mod:`.finnish27`, :mod:`.twentyone_24_27`: the rules and the rounds;
- :mod:`.poker`: the poker evaluator with wild Jokers (finnish27's bonus);
- :mod:`.bonuses`: finnish27's awards, each written once;
- :mod:`.analysis`: exact analysis with replacement (on :mod:`.replacement` and
  :mod:`.rank_walk`; 21-24-27's and its solver in :mod:`.twentyone_analysis`; tables of
  targets compared in :mod:`.comparison`);
- :mod:`.shoe`: exact analysis from the real shoe (the deal in :mod:`.shoe_deal`, the
  tables of hands in :mod:`.shoe_hands`, the count in :mod:`.shoe_count`, each game's in
  :mod:`.shoe_finnish27` and :mod:`.shoe_twentyone`, over :mod:`.shoe_kernel`,
  :mod:`.poker_shoe` and :mod:`.poker_odds`);
- :mod:`.kernel`: the compiled simulation (Numba; imported when asked for).
"""
