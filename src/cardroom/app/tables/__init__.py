"""Table sessions: what happens between people and an engine, with no input or output.

A house game's table (:class:`~cardroom.app.tables.house.HouseTable`) takes one person's
bets, deals, asks the engine what is legal and moves the money through the wallet;
a chemin de fer table (:mod:`cardroom.app.tables.chemmy`) seats people and bots.  The
terminal and the web stand on these; they only ask, show and pace.
"""
