"""The one codec: values to tagged JSON and back, and the judge's worker runs its very text."""

import json
from pathlib import Path

import pytest

from autograder.isolation import judge
from bpe_lab import codec


@pytest.mark.parametrize(
    "value",
    [None, True, 3, 2.5, "é", [1, (2, 3)], {("a", "b"): 2}, {1, 2}, b"\x00\xff", {"k": [{"n": (b"x",)}]}],
)
def test_a_value_goes_through_json_and_back(value):
    back = codec.unpack(json.loads(json.dumps(codec.pack(value))))
    assert back == value and type(back) is type(value)


def test_what_is_not_plain_data_is_unreadable_and_an_unknown_tag_an_error():
    with pytest.raises(codec.Unreadable, match="generator"):
        codec.pack(x for x in [])
    with pytest.raises(ValueError, match="unknown tag 'q'"):
        codec.unpack({"q": []})


def test_the_workers_text_holds_the_codecs_text_instead_of_importing_it():
    source = Path(codec.__file__).read_text(encoding="utf-8")
    assert source in judge.WORKER_SOURCE and "from bpe_lab.codec import" not in judge.WORKER_SOURCE
    compile(judge.WORKER_SOURCE, "<worker>", "exec")


def test_a_subclass_of_a_plain_type_is_packed_as_that_type_also_inside_lists_tuples_and_dicts():
    import collections
    import enum

    class Rank(enum.IntEnum):
        FIRST = 1

    class Name(str):
        pass

    row = [True, 1, Rank.FIRST, Name("a"), None, 2.5]
    for packed in (codec.pack(row), codec.pack(tuple(row))["t"]):
        assert [type(x) for x in packed] == [bool, int, int, str, type(None), float]
        assert packed == [True, 1, 1, "a", None, 2.5]
    assert codec.pack(collections.Counter({(1, Rank.FIRST): Rank.FIRST})) == {"d": [[{"t": [1, 1]}, 1]]}
    ids = [5, 6]
    assert codec.pack(ids) == ids and codec.pack(ids) is not ids  # a new list: the packed form never aliases


def test_a_sequence_whose_items_change_between_two_reads_is_packed_item_by_item():
    """A subclass can give other items each time it is read (student code, in the worker): never packed in one step
    after a first read found plain values, so what goes out is always JSON-ready."""

    class Shifty(tuple):
        reads = 0

        def __iter__(self):
            Shifty.reads += 1
            return iter([1, 2] if Shifty.reads == 1 else [object(), object()])

    packed = codec.pack(Shifty((1, 2)))
    assert json.loads(json.dumps(packed)) == packed  # read once, item by item: plain data, whatever a second read gives
