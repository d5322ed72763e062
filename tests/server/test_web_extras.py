"""The page's read-only endpoints (``roborally.server.web_extras``) in the reader's language."""

from __future__ import annotations

from starlette.testclient import TestClient


def test_the_course_picture_labels_its_boards_in_the_language(extras: TestClient) -> None:
    """``/api/web/board.svg?lang=``: each board's label is its title in the language (a dock's
    said so); an unknown language gets the English words."""
    with extras as client:
        url = "/api/web/board.svg?course=y23-betrayal"
        english = client.get(url).text
        assert ">Thornfield<" in english and ">Launch Bay A · dock<" in english
        polish = client.get(url + "&lang=pl").text
        assert ">Cierniste pole<" in polish and ">Dok startowy A · dok<" in polish
        assert ">Thornfield<" not in polish
        assert client.get(url + "&lang=xx").text == english
