"""Reading QR codes back as a phone's camera would: zxing-cpp (a dev dependency) decodes the
pixels of a picture; an SVG code is drawn to pixels first by CairoSVG (the png extra)."""

from __future__ import annotations

import io

import pytest


def decode_png(png: bytes) -> list[str]:
    """The texts of every QR code in the PNG picture ``png``."""
    zxingcpp = pytest.importorskip("zxingcpp", reason="zxing-cpp is a dev dependency")
    image = pytest.importorskip("PIL.Image")
    picture = image.open(io.BytesIO(png)).convert("L")
    return [found.text for found in zxingcpp.read_barcodes(picture) if found.valid]


def decode_svg(svg: str, width: int = 600) -> list[str]:
    """The texts of every QR code in ``svg``, drawn ``width`` pixels wide."""
    cairosvg = pytest.importorskip("cairosvg", reason="CairoSVG is the png extra")
    return decode_png(cairosvg.svg2png(bytestring=svg.encode(), output_width=width))
