"""One identity for a case: the text a judge file is stored as, and the case id of that text.

A judge file is UTF-8 text with `\\r\\n` and a lone `\\r` normalised to `\\n`; its case id is the
SHA-256 of that text. Ingest, run and stress all call these functions, so one input has one
key everywhere; an expected output's identity is computed the same way (`answer_id`).
"""

from __future__ import annotations

import hashlib

from pipeline.errors import InputError


def normalise_newlines(text: str) -> str:
    """The text with `\\r\\n` and lone `\\r` turned into `\\n`."""
    if "\r" not in text:  # one quick scan: most judge files have no carriage return
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _digest(encoded: bytes) -> str:
    return hashlib.sha256(encoded).hexdigest()


def case_id_of(text: str) -> str:
    """The case id of a judge input: the SHA-256 (hex) of its normalised text as UTF-8."""
    return _digest(normalise_newlines(text).encode("utf-8"))


def answer_id(expected: str | None) -> str | None:
    """The identity of a case's expected output (None: it has none), which a run records so
    that resuming it judges against the answers it started with (or refuses)."""
    return None if expected is None else case_id_of(expected)


def decode_judge_file(data: bytes) -> str:
    """A judge file's bytes as its normalised text; InputError (rule `encoding`, naming the
    line) when they are not UTF-8."""
    return normalise_newlines(_decode(data))


def judge_file(data: bytes) -> tuple[str, str, int]:
    """A judge file's normalised text, its case id (`case_id_of` of that text) and the length
    of the text's UTF-8. A file without `\\r` is hashed as read: its bytes are that UTF-8."""
    if b"\r" in data:
        text = decode_judge_file(data)
        encoded = text.encode("utf-8")
        return text, _digest(encoded), len(encoded)
    return _decode(data), _digest(data), len(data)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(line, f"byte {data[error.start]:#04x} is not valid UTF-8 text",
                         rule="encoding") from None
