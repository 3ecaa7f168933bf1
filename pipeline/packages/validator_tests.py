"""The validator tests in a package's data (`data/invalid_*`, `valid_output`), each with the
arguments inherited down its folders and its own `<name>.yaml`; `invalid` holds the validators
to them.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Literal

from pipeline.packages.model import TestCase, ValidatorTest
from pipeline.packages.yamlfile import load_yaml

Kind = Literal["invalid_input", "invalid_answer", "invalid_output", "valid_output"]
KINDS: tuple[Kind, ...] = ("invalid_input", "invalid_answer", "invalid_output", "valid_output")
SETTINGS_FILES = ("test_group.yaml", "testdata.yaml")
ARG_KEYS = ("input_validator_args", "output_validator_args", "answer_validator_args")


def _words(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return ()


def _settings(folder: Path, root: Path, inherited: dict) -> dict:
    settings = dict(inherited)
    for name in SETTINGS_FILES:
        path = folder / name
        if path.is_file():
            config, _ = load_yaml(path, root)
            for key in ARG_KEYS:
                if key in config:
                    settings[key] = config[key]
            break
    return settings


def _test(input_path: Path, data_dir: Path, kind: Kind, settings: dict,
          root: Path) -> ValidatorTest:
    settings = dict(settings)
    case_yaml = input_path.with_suffix(".yaml")
    if case_yaml.is_file():
        config, _ = load_yaml(case_yaml, root)
        for key in ARG_KEYS:
            if key in config:
                settings[key] = config[key]
    iv = settings.get("input_validator_args")
    by_name = tuple((str(k), _words(v)) for k, v in iv.items()) if isinstance(iv, dict) else None
    name = str(input_path.with_suffix("").relative_to(data_dir))
    answer = input_path.with_suffix(".ans")
    output = input_path.with_suffix(".out")
    case = TestCase(name=name, group=str(input_path.parent.relative_to(data_dir)),
                    input_path=input_path, answer_path=answer if answer.is_file() else None,
                    sample=False, input_validator_args=() if by_name is not None else _words(iv),
                    input_validator_args_by_name=by_name,
                    output_validator_args=_words(settings.get("output_validator_args")))
    return ValidatorTest(case, kind, output if output.is_file() else None,
                         _words(settings.get("answer_validator_args")))


def invalid_cases(data_dir: Path, root: Path) -> tuple[ValidatorTest, ...]:
    """The validator tests under `data_dir` (the package's data/ or generators.yaml's)."""
    found: list[ValidatorTest] = []
    top = _settings(data_dir, root, {}) if data_dir.is_dir() else {}

    def walk(folder: Path, kind: Kind, inherited: dict) -> None:
        settings = _settings(folder, root, inherited)
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith((".", "-")):
                continue
            if entry.is_dir():
                walk(entry, kind, settings)
            elif entry.suffix == ".in" and entry.is_file():
                found.append(_test(entry, data_dir, kind, settings, root))

    for kind in KINDS:
        if (data_dir / kind).is_dir():
            walk(data_dir / kind, kind, top)
    return tuple(found)


# -- answer validators --------------------------------------------------------------------------
