"""``bpe_lab.probes.stream_probe``: what it reports of a streamed result, taken a batch at a time."""

import pytest

from bpe_lab.probes import PROBE_BATCH, ids_crc, stream_probe


def ids_of(lines, n_per_line=3):
    """A lazy encoder: ``n_per_line`` ids for each line read, the line's length and its position."""
    for position, line in enumerate(lines):
        for k in range(n_per_line):
            yield (len(line) * 1000 + position * 7 + k) % 50_000


@pytest.mark.parametrize("repeat", [1, 5])
def test_a_long_stream_is_counted_summed_and_kept_as_one_by_one(repeat):
    lines = [f"line {i} " * (i % 4 + 1) for i in range(997)]  # 2,991 ids a pass: batches end mid-stream
    expected = list(ids_of([line for _ in range(repeat) for line in lines]))
    probe = stream_probe(ids_of, lines, (), keep=10, repeat=repeat)
    assert probe["count"] == len(expected) > PROBE_BATCH
    assert probe["crc"] == ids_crc(expected)
    assert probe["ids"] == expected[:10]
    assert (probe["first_read"], probe["read"], probe["lazy"], probe["bad"]) == (1, len(lines) * repeat, True, None)


@pytest.mark.parametrize("item", [True, -1, 2**31, "7", 3.0])
def test_the_first_bad_item_is_named_and_only_the_items_before_it_count(item):
    good = list(range(PROBE_BATCH + 500))

    def encoder(lines):
        yield from good
        yield item
        yield 5

    probe = stream_probe(encoder, [], (), keep=3)
    assert probe["bad"] == repr(item)
    assert (probe["count"], probe["crc"], probe["ids"]) == (len(good), ids_crc(good), [0, 1, 2])


def test_a_bad_item_before_an_exception_is_what_is_reported():
    def encoder(lines):
        yield 1
        yield "oops"
        raise ValueError("never reached one by one")

    assert stream_probe(encoder, [], (), keep=0)["bad"] == "'oops'"


def test_an_exception_after_good_items_propagates():
    def encoder(lines):
        yield from range(PROBE_BATCH + 3)
        raise ValueError("the encoder broke")

    with pytest.raises(ValueError, match="the encoder broke"):
        stream_probe(encoder, [], (), keep=0)


def test_the_first_item_records_how_many_lines_were_read_before_it():
    def late(lines):
        held = [next(lines) for _ in range(3)]  # reads three lines before its first id
        yield len(held)
        for line in lines:
            yield len(line)

    probe = stream_probe(late, ["a", "bb", "ccc", "dddd"], (), keep=5)
    assert (probe["first_read"], probe["read"], probe["ids"], probe["count"]) == (3, 4, [3, 4], 2)
    empty = stream_probe(lambda lines: iter(()), ["a"], (), keep=5)
    assert (empty["first_read"], empty["count"], empty["crc"], empty["lazy"]) == (None, 0, ids_crc([]), True)
    listed = stream_probe(lambda lines: [len(line) for line in lines], ["a", "bb"], (), keep=5)
    assert (listed["lazy"], listed["ids"], listed["first_read"]) == (False, [1, 2], 2)
