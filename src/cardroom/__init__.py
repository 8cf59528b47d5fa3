"""cardroom: play, simulate and exactly analyse the Finnish 27 family and baccarat."""

__version__ = "0.1.0"
