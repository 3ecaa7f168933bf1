"""The packages an ingest refused, kept in the data folder (`DATA/refused.json`: by the name the
package would have been registered under, its folder, why and when), so a later command that
asks for that name says it was refused and why, not only that no such problem exists. A name
is forgotten once a package registers under it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from pipeline.fsutil import atomic_write_text

REFUSED_FILE = "refused.json"


def _read(data_dir: Path) -> dict[str, dict]:
    path = Path(data_dir) / REFUSED_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none recorded, or unreadable: the plain message stands
    return data if isinstance(data, dict) else {}


def record_refused(data_dir: Path, refused: dict[str, tuple[str, str]],
                   registered: set[str]) -> None:
    """Record the packages an ingest refused (`refused`: name -> (its folder, why)) and forget
    the names that `registered` now (the caller holds the data folder's lock)."""
    data = _read(data_dir)
    if not refused and not (registered & set(data)):
        return
    for name in registered:
        data.pop(name, None)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    for name, (source, why) in refused.items():
        if name not in registered:  # another package of the ingest registered under it
            data[name] = {"source": source, "why": why, "at": when}
    path = Path(data_dir) / REFUSED_FILE
    if data:
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        path.unlink(missing_ok=True)


def refused_note(data_dir: Path, name: str) -> str | None:
    """Why the package that would be problem `name` was refused (None: none was)."""
    entry = _read(data_dir).get(name)
    if not isinstance(entry, dict):
        return None
    source = entry.get("source", "?")
    return (f"problem {name!r} was refused when {source} was ingested ({entry.get('at', '?')}): "
            f"{entry.get('why', '?')}; fix it and `pipeline ingest {source}` again")
