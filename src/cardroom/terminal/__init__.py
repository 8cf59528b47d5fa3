"""The terminal: the ``cardroom`` commands, the prompts and the Rich screens.

Presentation only: it asks, shows and paces; the games, the money and the history
live in the layers below.
"""
