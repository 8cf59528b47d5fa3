"""Tests of the storage layer (the database, its migrations, older bankroll files), on SQLite
and (when there is one) PostgreSQL."""
