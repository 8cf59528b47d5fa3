"""Alembic's environment (``env.py``) and the revisions (``versions/``) of the schema."""
