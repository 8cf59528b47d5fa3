"""The revisions of the schema, oldest first: ``v0001_schema.py``, ..."""
