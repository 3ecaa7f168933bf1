"""TokenReader: spaces and newlines between tokens, and errors that name the line, column and
rule."""

import pytest

from pipeline.errors import InputError
from pipeline.problems.identity import normalise_newlines
from pipeline.problems.tokens import TokenReader, check_tokens_equal


def test_free_spacing_and_crlf_are_accepted():
    reader = TokenReader("3 \r\n 1  2 \r3\r\n")
    n = reader.int("N", 1, 10)
    assert reader.ints(n, "a_i", 0, 9) == [1, 2, 3]
    reader.end()


def test_only_spaces_and_newlines_separate_unless_the_statement_allows_a_tab():
    with pytest.raises(InputError) as caught:
        TokenReader("2\n1\t2\n")
    assert (caught.value.line, caught.value.column, caught.value.rule) == (2, 2, "separator")
    assert TokenReader("2\n1\t2\n", tab=True).tokens == ["2", "1", "2"]
    with pytest.raises(InputError) as caught:
        TokenReader("2\n1\t2\u00a03\n", tab=True)
    assert (caught.value.line, caught.value.column, caught.value.rule) == (2, 4, "separator")


def test_range_errors_name_the_line_and_the_bound():
    reader = TokenReader("2\n5 0\n")
    reader.int("N")
    with pytest.raises(InputError) as caught:
        reader.ints(2, "a_i", 1, 9)
    assert str(caught.value) == "line 2: a_i = 0 is below 1"
    assert caught.value.rule == "range"


def test_a_non_integer_names_line_and_column():
    reader = TokenReader("1\n  x7\n")
    reader.int("N")
    with pytest.raises(InputError) as caught:
        reader.int("a_1")
    assert (caught.value.line, caught.value.column, caught.value.rule) == (2, 3, "not-an-integer")


@pytest.mark.parametrize("token", ["+5", "1_0", "٣", "5.0", "0x1", "05", "-0", "00"])
def test_integers_are_plain_ascii_digits(token):
    with pytest.raises(InputError):
        TokenReader(f"{token}\n").ints(1, "a_i")


def test_missing_and_trailing_tokens():
    reader = TokenReader("3\n1 2\n")
    reader.int("N")
    with pytest.raises(InputError, match="input ended") as caught:
        reader.ints(3, "a_i")
    assert caught.value.rule == "count"
    reader = TokenReader("1\n4\n9\n")
    reader.int("N")
    reader.int("a_1")
    with pytest.raises(InputError) as caught:
        reader.end()
    assert (caught.value.line, caught.value.rule) == (3, "trailing-data")


def test_token_comparison_and_newline_normalisation():
    assert check_tokens_equal(["Yes"], ["Yes"]) is None
    assert "token 1" in check_tokens_equal(["Yes"], ["No"])
    assert "expected 2 tokens" in check_tokens_equal(["1", "2"], ["1"])
    assert normalise_newlines("a\r\nb\rc\n") == "a\nb\nc\n"
