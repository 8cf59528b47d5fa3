"""The ground floor: cards, the shoe, money, rules files, events and reading input.

Nothing here knows a game; every game, table and interface stands on it.
"""
