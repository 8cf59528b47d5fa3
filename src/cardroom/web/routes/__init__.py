"""The web table's routers: the JSON API and the pages."""
