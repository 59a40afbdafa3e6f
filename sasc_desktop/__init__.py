"""SASC Desktop: search among sensitive content."""
__version__ = "0.1.0"
