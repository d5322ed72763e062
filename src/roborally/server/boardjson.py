"""The course grid as JSON: moved to :mod:`roborally.content.boardjson` (kept for old imports)."""

from roborally.content.boardjson import course_board, grid_to_json

__all__ = ["course_board", "grid_to_json"]
