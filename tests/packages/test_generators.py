"""A package's generators as recipes: a Polygon package's generator commands with a seed
argument (appended, or in place of the last integer that tells a family of tests apart), and
`--generator` commands naming a program of the package, a file or a command. Real generators:
the Polygon fixture's testlib `gen.cpp` compiled with g++, Python scripts run as they are."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packagekit import FIXTURES

from pipeline.packages import build_package, load_package, validate_case
from pipeline.packages.generators import (
    SEED_RANGE,
    GeneratorError,
    generator_recipe,
    package_recipes,
    polygon_commands,
)
from pipeline.packages.judge import case_in_group
from pipeline.packages.problem import TextCase
from pipeline.programs.languages import build_program

STRESS_PROGRAMS = Path(__file__).resolve().parents[1] / "stress" / "programs"


def valid(package, builds, text: str, group: str, tmp_path: Path) -> bool:
    path = tmp_path / "input"
    path.write_text(text)
    return validate_case(package, builds, case_in_group(package, group, path)).valid


def test_each_polygon_generator_command_is_a_recipe_with_the_seed_appended(build_dir):
    package = load_package(FIXTURES / "polysum", build_dir)
    commands = polygon_commands(package)
    assert [(c.name, c.group) for c in commands] == [
        ("gen 5 1 10 {seed}", "small"), ("gen 8 2 1000 {seed}", "small"),
        ("gen 100 3 1000000000000 {seed}", "large")]
    assert "tests/02" in commands[0].origin and "appended" in commands[0].origin


def test_commands_differing_only_in_a_last_integer_take_the_seed_there(copy_fixture,
                                                                       build_dir):
    root = copy_fixture("polysum")
    xml = root / "problem.xml"
    xml.write_text(xml.read_text()
                   .replace('cmd="gen 5 1 10"', 'cmd="gen 5 1 10 1"')
                   .replace('cmd="gen 8 2 1000"', 'cmd="gen 5 1 10 2 &gt; $"'))
    package = load_package(root, build_dir)
    assert [(c.name, c.group) for c in polygon_commands(package)] == [
        ("gen 5 1 10 {seed}", "small"), ("gen 100 3 1000000000000 {seed}", "large")]


def test_a_recipe_runs_the_generator_with_a_seed_drawn_from_its_random_source(build_dir,
                                                                             tmp_path):
    package = load_package(FIXTURES / "polysum", build_dir)
    builds = build_package(package, build_dir, submissions=[])
    recipe = package_recipes(package, build_dir, TextCase)[0]
    assert (recipe.name, recipe.kind, recipe.group) == ("gen 5 1 10 {seed}", "family", "small")
    case = recipe.make(random.Random("one"))
    assert case == recipe.make(random.Random("one"))            # the same source, the same input
    assert case != recipe.make(random.Random("two"))
    # it is what the generator itself writes for that seed
    seed = random.Random("one").randrange(*SEED_RANGE)
    gen = build_program(next(p for p in package.generators if p.name == "gen"), build_dir)
    direct = subprocess.run([*gen.argv, "5", "1", "10", str(seed)], capture_output=True,
                            text=True, check=True).stdout
    assert case.text == direct
    assert direct.split()[0] == "5" and all(abs(int(v)) <= 10 for v in direct.split()[1:])
    assert valid(package, builds, case.text, recipe.group, tmp_path)


def test_a_generator_is_a_program_of_the_package_a_file_of_it_or_an_external_command(
        copy_fixture, build_dir, tmp_path):
    root = copy_fixture("bigsum")
    (root / "generators").mkdir()
    shutil.copy(STRESS_PROGRAMS / "bounded_numbers.py", root / "generators" / "gen.py")
    package = load_package(root, build_dir)
    builds = build_package(package, build_dir, submissions=[])
    script = STRESS_PROGRAMS / "bounded_numbers.py"
    for command in ("gen.py 3 5", "generators/gen.py 3 5 {seed}", f"{script} 3 5",
                    f"{sys.executable} {script} 3 5 {{seed}}"):
        recipe = generator_recipe(command, package, build_dir, TextCase, "secret/group1")
        assert recipe.name.endswith(" 3 5 {seed}"), recipe.name   # appended when absent
        text = recipe.make(random.Random(command)).text
        assert text.split()[0] == "3" and len(text.split()) == 4, command
        assert valid(package, builds, text, "secret/group1", tmp_path)
    polygon = load_package(FIXTURES / "polysum", build_dir)
    assert generator_recipe("gen 2 1 3", polygon, build_dir, TextCase).make(
        random.Random(1)).text.split()[0] == "2"


def test_a_generator_that_is_not_there_or_fails_is_named(build_dir, tmp_path):
    package = load_package(FIXTURES / "polysum", build_dir)
    with pytest.raises(GeneratorError, match=r"'nosuch': not a program of package polysum "
                                             r"\(its generators: gen\)"):
        generator_recipe("nosuch 1 2", package, build_dir, TextCase)
    with pytest.raises(GeneratorError, match="empty"):
        generator_recipe("", package, build_dir, TextCase)
    failing = tmp_path / "fails.py"
    failing.write_text("import sys\nprint('no luck', file=sys.stderr)\nsys.exit(3)\n")
    recipe = generator_recipe(f"{failing} {{seed}} x", package, build_dir, TextCase)
    with pytest.raises(GeneratorError, match=r"fails.py \d+ x` failed: .*code 3: no luck"):
        recipe.make(random.Random(0))
