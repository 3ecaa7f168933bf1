"""Which of a package's test groups an input belongs to, and the test case it is judged as:
an input found in a group gets the arguments that group's cases get (validators, checker).
"""

from __future__ import annotations

from pathlib import Path

from pipeline.packages.model import Package, TestCase


def package_group(package: Package, group: str) -> str | None:
    """The package's group that `group` is: itself, or the group it ends with (a case kept
    in `found/secret/group2` belongs to `secret/group2`); None when there is none."""
    names = {c.group for c in package.cases}
    parts = group.split("/")
    return next(("/".join(parts[i:]) for i in range(len(parts))
                 if "/".join(parts[i:]) in names), None)


def case_in_group(package: Package, group: str, input_path: Path) -> TestCase:
    """A test case for an input found in `group`, with the arguments that group's cases get."""
    own = package_group(package, group)
    model = next((c for c in package.cases if c.group == own), None)
    if model is not None:  # a case of its own arguments (<name>.yaml): the one with this input
        own_args = [c for c in package.cases if c.group == own and (
            c.args, c.input_validator_args, c.input_validator_args_by_name) != (
            model.args, model.input_validator_args, model.input_validator_args_by_name)]
        if own_args:
            text = input_path.read_bytes()
            model = next((c for c in [model, *own_args] if c.input_path.read_bytes() == text),
                         model)
    if model is None:
        model = next((c for c in package.cases if not c.sample), None) or (
            package.cases[0] if package.cases else None)
    if model is None:
        return TestCase(name="input", group=group, input_path=input_path, answer_path=None,
                        sample=group == "sample")
    return TestCase(name=model.name, group=model.group, input_path=input_path,
                    answer_path=None, sample=model.sample, args=model.args,
                    input_validator_args=model.input_validator_args,
                    input_validator_args_by_name=model.input_validator_args_by_name,
                    output_validator_args=model.output_validator_args)
