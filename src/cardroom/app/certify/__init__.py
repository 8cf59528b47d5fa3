"""``cardroom certify-rng``: the production shuffle tested as a test lab asks, and the
report it accepts.

- :mod:`.generators`: the shuffles under test (the tables' own), in words;
- :mod:`.sampling`: every game's shoe shuffled many times on every core, counted;
- :mod:`.statistics`: chi-square tests against exact values, NIST SP 800-22's reading
  of many p-values;
- :mod:`.batteries`: Debian's dieharder and ent on the raw draws;
- :mod:`.run`: a whole run, as one :class:`~.run.Certificate`;
- :mod:`.report`: the certificate as HTML and PDF, with plots.
"""
