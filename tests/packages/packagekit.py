"""Names the package tests share: where the fixture packages are, and which there are.

(A module of its own: `conftest` names collide across test folders.)
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "packages"
KATTIS = ("circlearea", "hypotenuse", "guess", "bigsum")
ALL = (*KATTIS, "polysum")
