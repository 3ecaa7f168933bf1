"""Durations on the command line: `60s`, `2m`, `1h`, `1m30s` or plain seconds (`90`)."""

from __future__ import annotations

import math
import re

from pipeline.errors import UserError

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(text: str) -> float:
    """Seconds in `text`; ValueError naming the text when it is not a duration."""
    stripped = text.strip().lower()
    try:
        seconds = float(stripped)
    except ValueError:
        parts = _PART.findall(stripped)
        if not parts or "".join(n + u for n, u in parts) != stripped:
            raise UserError(f"{text!r} is not a duration (examples: 60s, 2m, 1h, 90)") from None
        seconds = sum(float(number) * _UNIT_S[unit] for number, unit in parts)
    if not math.isfinite(seconds) or seconds <= 0:
        raise UserError(f"{text!r}: a duration must be a positive number of seconds")
    return seconds
