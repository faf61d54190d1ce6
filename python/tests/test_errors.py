"""Bad options raise ValueError with the CLI's messages."""

import json

import pytest

import actionstream
from conftest import cli


def cli_message(*args):
    code, _, stderr = cli("parse", *args, "examples/responses/facilitator.md")
    assert code == 2
    assert stderr.startswith("actionstream: ")
    return stderr[len("actionstream: ") :].strip()


def raised(**options):
    with pytest.raises(ValueError) as err:
        actionstream.Parser(**options)
    with pytest.raises(ValueError) as again:
        actionstream.SseParser(**options)
    assert str(again.value) == str(err.value)
    return str(err.value)


def test_unknown_dialect():
    message = raised(dialects=["qwen"])
    assert message == cli_message("--dialect", "qwen")
    assert message.startswith("unknown dialect `qwen`; the dialects are actions, hermes")


def test_unknown_model_family():
    message = raised(model="acme/unknown-7b")
    assert message == cli_message("--model", "acme/unknown-7b")
    assert message.startswith("no model family matches `acme/unknown-7b`")
    with pytest.raises(ValueError, match="no model family"):
        actionstream.dialects_for_model("acme/unknown-7b")


def test_schema_that_does_not_compile(tmp_path):
    schema = {"deploy": {"type": "object", "properties": {"env": {"type": 5}}}}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    message = raised(schema=schema)
    assert message == cli_message("--schema", str(path))
    assert message.startswith("schema for 'deploy' is invalid: ")


@pytest.mark.parametrize(
    "tools",
    [
        [{"name": "now"}, {"parameters": {}}],
        [{"name": "add", "input_schema": "oops"}],
        {"model": "m"},
        [{"name": "a"}, {"name": "a"}],
    ],
)
def test_tool_list_that_is_none(tmp_path, tools):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    cli_says = cli_message("--tools", str(path))
    # The CLI names the file; the value is named `tools`.
    assert cli_says.startswith(f"{path} is not a valid tool list: ")
    assert raised(tools=tools) == "tools" + cli_says[len(str(path)) :]


def test_tool_schema_that_does_not_compile(tmp_path):
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "required": 3}}}]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    assert raised(tools=tools) == cli_message("--tools", str(path))


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError):
        actionstream.Parser(dialects="hermes")
    with pytest.raises(TypeError):
        actionstream.Parser(strict="yes")
    with pytest.raises(TypeError):
        actionstream.Parser(schema={"a": object()})
    with pytest.raises(TypeError, match="push takes str or bytes, not int"):
        actionstream.Parser().push(3)
    with pytest.raises(TypeError):
        actionstream.Parser("hermes")
    # Both parsers read their options in one place: a misspelt keyword is
    # named, and so is the option of a wrong type.
    for cls in (actionstream.Parser, actionstream.SseParser):
        with pytest.raises(TypeError, match=f"^{cls.__name__}\\(\\) got an unexpected keyword argument 'dialect'$"):
            cls(dialect=["hermes"])
        with pytest.raises(TypeError, match="^argument 'argument_deltas': "):
            cls(argument_deltas="yes")


def test_none_is_each_options_default():
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    nones = dict.fromkeys(
        ["dialects", "model", "tools", "schema", "max_block_bytes", "fence_tags", "xml_tags", "discriminators"]
    )
    assert actionstream.Parser(**nones).push(text) == actionstream.Parser().push(text)


def test_good_options_are_taken():
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}}}]
    events = actionstream.parse(
        '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>', dialects=["hermes"], tools=tools
    )
    assert events[-1].errors == ["at city: required field missing"]


# One check for every face (`ParserSettings::validate` in the library): the
# same bad values refused with the same message as the CLI's. Before,
# `max_block_bytes=0` was raised to 16 bytes in silence and every fenced
# action became narrative.
@pytest.mark.parametrize(
    "options, flags",
    [
        ({"max_block_bytes": 0}, ["--max-block-bytes", "0"]),
        ({"max_block_bytes": 15}, ["--max-block-bytes", "15"]),
        ({"xml_tags": [""]}, ["--xml-tag", ""]),
        ({"xml_tags": ["<invoke>"]}, ["--xml-tag", "<invoke>"]),
        ({"fence_tags": ["my plan"]}, ["--fence-tag", "my plan"]),
        ({"discriminators": [""]}, ["--discriminator", ""]),
    ],
)
def test_bad_values_are_refused_as_the_cli_refuses_them(options, flags):
    message = raised(**options)
    assert message == cli_message(*flags)


def test_max_block_bytes_zero_is_refused_not_raised():
    assert raised(max_block_bytes=0) == "max_block_bytes must be at least 16 bytes, not 0"
    # The smallest value honoured is taken.
    actionstream.Parser(max_block_bytes=16)
