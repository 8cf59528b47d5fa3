"""Tests of the storage layer and the wallet, on SQLite and (when there is one) PostgreSQL."""
