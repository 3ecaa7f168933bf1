"""Reading a Kattis package's `problem.yaml` and the checked values (numbers, word lists,
validator arguments) its other settings files hold too. An unknown key, or a time setting
above `MAX_TIME_SETTING_S` (lowered to it), is a note kept in `IGNORED`.
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path

from pipeline.errors import PackageError
from pipeline.packages.contest import ContestLimit
from pipeline.packages.model import Format, Limits, ProblemType
from pipeline.packages.yamlfile import Lines

LEGACY_KEYS = {"problem_format_version", "type", "name", "uuid", "author", "source",
               "source_url", "license", "rights_owner", "limits", "validation",
               "validator_flags", "grading", "keywords", "languages", "libraries"}
MODERN_KEYS = {"problem_format_version", "type", "name", "uuid", "version", "credits", "source",
               "license", "rights_owner", "embargo_until", "limits", "keywords", "languages",
               "allow_file_writing", "constants"}


def format_version(value: object, file: str, line: int | None) -> Format:
    text = "legacy" if value is None else str(value)
    if text in ("legacy", "legacy-icpc"):
        return "legacy"
    if text in ("2023-07", "2023-07-draft"):
        return "2023-07"
    if text in ("2025-09", "2025-09-draft", "draft"):
        return "2025-09"
    raise PackageError(file, "problem_format_version", f"unknown problem_format_version "
                       f"{text!r}; known: legacy, 2023-07(-draft), 2025-09(-draft)", line=line)


def checked_number(value: object, file: str, key: str, line: int | None, *,
                   minimum: float = 0.0, strict: bool = True, integer: bool = False) -> float:
    if (not isinstance(value, (int, float)) or isinstance(value, bool)
            or not math.isfinite(value)
            or not (value > minimum if strict else value >= minimum)
            or (integer and not float(value).is_integer())):
        kind = "an integer" if integer else "a number"
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise PackageError(file, key, f"{key} must be {kind} {bound}, got {value!r}", line=line)
    return float(value)


def words(value: object, file: str, key: str, line: int | None) -> tuple[str, ...]:
    """A sequence of strings (or, as the drafts and legacy wrote them, one string of words)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return tuple(str(v) for v in value)
    raise PackageError(file, key, f"{key} must be a sequence of strings, got {value!r}", line=line)


def validator_args(value: object, file: str, key: str, line: int | None):
    """(args for every validator, args by validator name or None)."""
    if isinstance(value, dict):
        return (), tuple((str(name), words(args, file, f"{key}.{name}", line))
                         for name, args in value.items())
    return words(value, file, key, line), None


def read_problem_type(config: dict, version: Format, file: str,
                      lines: Lines) -> tuple[ProblemType, bool]:
    """(type, custom scoring by the validator)."""
    if version == "legacy":
        kind = config.get("type", "pass-fail")
        if kind not in ("pass-fail", "scoring"):
            raise PackageError(file, "type", f"type must be pass-fail or scoring, got {kind!r}",
                               line=lines("type"))
        validation = str(config.get("validation", "default")).split()
        if not validation or validation[0] not in ("default", "custom"):
            raise PackageError(file, "validation", "validation must begin with default or "
                               f"custom, got {config.get('validation')!r}",
                               line=lines("validation"))
        params = validation[1:]
        if validation[0] == "default" and params:
            raise PackageError(file, "validation", f"validation: default takes no parameters, "
                               f"got {' '.join(params)!r}", line=lines("validation"))
        unknown = [p for p in params if p not in ("score", "interactive")]
        if unknown:
            raise PackageError(file, "validation", f"unknown validation parameter "
                               f"{unknown[0]!r}; known: score, interactive",
                               line=lines("validation"))
        return ProblemType(scoring=kind == "scoring", interactive="interactive" in params), \
            "score" in params
    value = config.get("type", "pass-fail")
    kinds = [value] if isinstance(value, str) else value
    known = {"pass-fail", "scoring", "multi-pass", "interactive", "submit-answer"}
    if not isinstance(kinds, list) or not kinds or any(k not in known for k in kinds):
        raise PackageError(file, "type", f"type must be one or more of {sorted(known)}, got "
                           f"{value!r}", line=lines("type"))
    if len(set(kinds)) != len(kinds):
        raise PackageError(file, "type", f"type repeats a value: {kinds}", line=lines("type"))
    for a, b in (("pass-fail", "scoring"), ("multi-pass", "submit-answer"),
                 ("interactive", "submit-answer")):
        if a in kinds and b in kinds:
            raise PackageError(file, "type", f"type cannot be both {a} and {b}",
                               line=lines("type"))
    problem_type = ProblemType(scoring="scoring" in kinds, interactive="interactive" in kinds,
                               multi_pass="multi-pass" in kinds,
                               submit_answer="submit-answer" in kinds)
    return problem_type, problem_type.scoring


# The limits every format gives: (key under `limits`, `Limits` field, default; an int: an integer)
COMMON_LIMITS = (("memory", "memory_mb", 2048), ("output", "output_mb", 8),
                 ("code", "code_kb", 128), ("compilation_time", "compilation_time_s", 60.0),
                 ("compilation_memory", "compilation_memory_mb", 2048),
                 ("validation_time", "validation_time_s", 60.0),
                 ("validation_memory", "validation_memory_mb", 2048),
                 ("validation_output", "validation_output_mb", 8))


def read_limits(config: dict, version: Format, root: Path, file: str, lines: Lines,
                contest: ContestLimit | None = None) -> Limits:
    """The package's limits; `contest` (the time limit its contest's problems.yaml gives) is
    its time limit when it gives none (`limits.time_limit`, a legacy `.timelimit`)."""
    limits = config.get("limits") or {}
    if not isinstance(limits, dict):
        raise PackageError(file, "limits", "limits must be a mapping", line=lines("limits"))

    def get(key: str, default, **rules):
        if key not in limits:
            return default
        value = checked_number(limits[key], file, f"limits.{key}", lines("limits", key),
                               **rules)
        if key in TIME_SETTINGS:
            value = capped_time(value, file, f"limits.{key}", lines("limits", key))
        return value

    common = {name: int(get(key, default, integer=True)) if isinstance(default, int)
              else get(key, default) for key, name, default in COMMON_LIMITS}
    if version == "legacy":
        known = {"time_multiplier", "time_safety_margin", *(key for key, *_ in COMMON_LIMITS)}
        unknown_keys(limits, known, file, "limits", lines)
        given = _timelimit_file(root)
        factors = {"ac_to_time_limit": get("time_multiplier", 5.0),
                   "time_limit_to_tle": get("time_safety_margin", 2.0)}
    else:
        known = {"time_multipliers", "time_limit", "time_resolution", "validation_passes",
                 *(key for key, *_ in COMMON_LIMITS)}
        unknown_keys(limits, known, file, "limits", lines)
        multipliers = limits.get("time_multipliers") or {}
        if not isinstance(multipliers, dict):
            raise PackageError(file, "limits.time_multipliers", "time_multipliers must be a "
                               "mapping", line=lines("limits", "time_multipliers"))
        unknown_keys(multipliers, {"ac_to_time_limit", "time_limit_to_tle"}, file,
                      "limits.time_multipliers", lines, ("limits", "time_multipliers"))

        def factor(key: str, default: float) -> float:
            if key not in multipliers:
                return default
            return checked_number(multipliers[key], file, f"limits.time_multipliers.{key}",
                                  lines("limits", "time_multipliers", key), minimum=1.0,
                                  strict=False)

        given = get("time_limit", None)
        factors = {"ac_to_time_limit": factor("ac_to_time_limit", 2.0),
                   "time_limit_to_tle": factor("time_limit_to_tle", 1.5),
                   "time_resolution_s": get("time_resolution", 1.0),
                   "validation_passes": int(get("validation_passes", 2, minimum=2, strict=False,
                                                integer=True))}
    contest = contest if given is None else None
    time_s = contest.time_s if contest else given
    return Limits(time_s=time_s, time_source="given" if time_s is not None else "derive",
                  time_from=contest.where if contest else "", **factors, **common)


def capped_contest_limit(found: ContestLimit | None) -> ContestLimit | None:
    """The time limit the package's contest gives it, capped as the package's own would be."""
    if found is None:
        return None
    return ContestLimit(capped_time(found.time_s, found.where, "time_limit", None), found.where)


# Settings that are a time some program may run for, and the most any of them is taken to say
# (so a huge `validation_time` cannot hold the ingest on one sleeping validator).
TIME_SETTINGS = ("time_limit", "compilation_time", "validation_time")
MAX_TIME_SETTING_S = 120.0


def capped_time(value: float, file: str, key: str, line: int | None) -> float:
    """`value` (seconds) lowered to `MAX_TIME_SETTING_S`, with a note when it was above it."""
    if value <= MAX_TIME_SETTING_S:
        return value
    if IGNORED:
        IGNORED[-1].append(f"{file}{f':{line}' if line else ''}: {key} {value:g} s is above "
                           f"the {MAX_TIME_SETTING_S:g} s the pipeline allows any program; "
                           f"{MAX_TIME_SETTING_S:g} s is used")
    return MAX_TIME_SETTING_S


def _timelimit_file(root: Path) -> float | None:
    """DOMjudge's `.timelimit` file (seconds), which legacy packages from BAPCtools carry."""
    path = root / ".timelimit"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8").strip()
    try:
        value = float(text)
    except ValueError:
        raise PackageError(".timelimit", "timelimit", f"must hold a number of seconds, got "
                           f"{text[:40]!r}", line=1) from None
    if not value > 0:
        raise PackageError(".timelimit", "timelimit", f"must be > 0, got {value:g}", line=1)
    return capped_time(value, ".timelimit", "the time limit", 1)


# What the package being loaded holds that the pipeline does not know (innermost load last):
# read past with a note, as problemtools does, so a package for a newer tool still loads.
IGNORED: list[list[str]] = []


def ignore_unknown(file: str, message: str, line: int | None) -> None:
    if IGNORED:
        IGNORED[-1].append(f"{file}{f':{line}' if line else ''}: {message} (ignored)")


def unknown_keys(mapping: dict, known: set[str], file: str, where: str, lines: Lines,
                  prefix: tuple[str, ...] | None = None) -> None:
    """A note for each key of `mapping` not in `known` (read past, as problemtools warns);
    `prefix`: its key path in the file (default: `where` split on dots)."""
    path = prefix if prefix is not None else tuple(where.split("."))
    for key in mapping:
        if key not in known:
            ignore_unknown(file, f"unknown key {key!r} in {where}; known: "
                           f"{', '.join(sorted(known))}", lines(*path, str(key)))


def title(config: dict) -> str:
    name = config.get("name")
    if isinstance(name, dict):
        return str(name.get("en") or next(iter(name.values()), ""))
    return str(name or "")
