"""Every test input, at every chunking, gives the CLI's events."""

import pytest

from conftest import (
    ROOT,
    check_every_chunking,
    dicts,
    golden_events,
    input_id,
    merged,
    run,
    same_lines,
    text_inputs,
)

INPUTS = text_inputs()


@pytest.mark.parametrize("item", INPUTS, ids=input_id)
def test_every_chunking_gives_the_cli_events(item):
    path, options = item
    text = path.read_text(encoding="utf-8")
    events = check_every_chunking(text, **options)
    same_lines(events, merged(golden_events(path)))


@pytest.mark.parametrize("item", INPUTS, ids=input_id)
def test_one_byte_at_a_time_is_the_cli_event_for_event(item):
    # `parse --chunk-size 1` pushes bytes one at a time: the same pushes
    # give the same events, unmerged.
    path, options = item
    data = path.read_bytes()
    events = run([data[i : i + 1] for i in range(len(data))], **options)
    same_lines(dicts(events), golden_events(path, "--chunk-size 1"))


# The CLI's option sets in the golden files, as Parser options.
OPTION_SETS = [
    ("--strict", {"strict": True}),
    ("--deltas", {"action_deltas": True}),
    ("--max-block-bytes 64", {"max_block_bytes": 64}),
    ("--fence-tag facilitator-action", {"fence_tags": ["facilitator-action"]}),
    ("--xml-tag call --discriminator type", {"xml_tags": ["call"], "discriminators": ["type"]}),
    ("--schema tests/data/echelon.schema.json", "schema"),
]

TOP_LEVEL = [item for item in INPUTS if not item[1]]


@pytest.mark.parametrize("flags,options", OPTION_SETS, ids=[f for f, _ in OPTION_SETS])
@pytest.mark.parametrize("item", TOP_LEVEL, ids=input_id)
def test_options_give_the_cli_events(item, flags, options):
    import json

    path, _ = item
    if options == "schema":
        options = {"schema": json.loads((ROOT / "tests/data/echelon.schema.json").read_text())}
    events = check_every_chunking(path.read_text(encoding="utf-8"), **options)
    same_lines(events, merged(golden_events(path, flags)))
