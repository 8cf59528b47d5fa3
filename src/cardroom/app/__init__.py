"""The application floor, between the games and the presentations: the wallet (accounts
and a ledger row for every movement), the tables (a person's house tables and the chemin
de fer tables, with no I/O of their own), replayable records, sign-in sessions, names,
scoreboards, the rules pages' words and every sentence a person reads (``words``).
Storage is :mod:`cardroom.storage`, below it."""
