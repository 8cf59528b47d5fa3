"""The web table: FastAPI pages, the JSON API and live chemin de fer tables, on the
application layer."""
