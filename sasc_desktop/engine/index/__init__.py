"""The project's Whoosh index: schema, writing, searching, highlighting."""
from .schema import INDEX_VERSION, build_schema, DEFAULT_FIELD_WEIGHTS, SEARCH_FIELDS
from .search_index import SearchIndex

__all__ = ["INDEX_VERSION", "build_schema", "DEFAULT_FIELD_WEIGHTS", "SEARCH_FIELDS", "SearchIndex"]
