"""Exact analysis: probabilities and returns computed from the rules, as fractions."""
