"""The web table: FastAPI pages and API on the application layer (being built)."""
