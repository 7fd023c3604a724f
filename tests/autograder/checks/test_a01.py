"""The hidden checks of 01_pair_counts_and_merge: correct code in any style passes, typical mistakes fail with a short,
exact message."""

from collections import Counter, defaultdict

import pytest

import bpe_ref
from autograder.checks import CheckFailed
from autograder.checks import a01 as checks

# ---------------------------------------------------------------------------------------------------------------
# correct code in other styles
# ---------------------------------------------------------------------------------------------------------------


def counts_counter(ids):
    return Counter(zip(ids, ids[1:]))


def counts_defaultdict(ids):
    out = defaultdict(int)
    for i in range(len(ids) - 1):
        out[ids[i], ids[i + 1]] += 1
    return out


def merge_recursive(ids, pair, new_id):
    if len(ids) < 2:
        return list(ids)
    if (ids[0], ids[1]) == tuple(pair):
        return [new_id, *merge_recursive(ids[2:], pair, new_id)]
    return [ids[0], *merge_recursive(ids[1:], pair, new_id)]


def merge_tuple_chatty(ids, pair, new_id):
    print("merging", pair)  # printing is allowed and swallowed
    out, i = [], 0
    while i < len(ids):
        if tuple(ids[i : i + 2]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return tuple(out)


@pytest.mark.parametrize("fn", [counts_counter, counts_defaultdict])
@pytest.mark.parametrize("part", ["basic", "overlaps"])
def test_pair_counts_in_other_styles_pass(fn, part):
    checks.check_get_pair_counts(fn, part)


@pytest.mark.parametrize("fn", [merge_recursive, merge_tuple_chatty])
@pytest.mark.parametrize("part", ["basic", "overlaps"])
def test_merge_in_other_styles_pass(fn, part):
    checks.check_merge(fn, part)


# ---------------------------------------------------------------------------------------------------------------
# typical mistakes fail, on the right part, with the smallest input and a three-line message
# ---------------------------------------------------------------------------------------------------------------


def merge_no_skip(ids, pair, new_id):
    out = []
    for i in range(len(ids)):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], ids[i]) == pair:
            continue
        else:
            out.append(ids[i])
    return out


def test_merge_without_skip_passes_basic_and_fails_overlaps_on_the_smallest_run():
    checks.check_merge(merge_no_skip, "basic")  # no overlapping matches there
    with pytest.raises(CheckFailed) as info:
        checks.check_merge(merge_no_skip, "overlaps")
    lines = str(info.value).splitlines()
    assert len(lines) == 3
    # the smallest overlapping input is a run of three equal ids
    assert lines[0].startswith("merge([")
    expected = bpe_ref.merge(eval(lines[0][len("merge(") : lines[0].index("]") + 1]), *_pair_and_id(lines[0]))
    assert lines[1] == f"  expected: {expected!r}"
    assert lines[2].startswith("  returned: ")


def _pair_and_id(call_line):
    inner = call_line[call_line.index("],") + 2 : call_line.rindex(")")]
    pair, new_id = eval(f"({inner})")
    return pair, new_id


def merge_in_place(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i : i + 2] = [new_id]
        i += 1
    return ids


@pytest.mark.parametrize("part", ["basic", "overlaps"])
def test_merge_that_changes_its_input_fails_every_part(part):
    # The smallest inputs are empty lists, returned as they are; larger ones are changed in place.
    with pytest.raises(CheckFailed, match="changed argument 1|the list it was given itself"):
        checks.check_merge(merge_in_place, part)


def test_counts_sorted_instead_of_first_occurrence_fail_basic_only():
    """The order is stated in the part named for it (basic), never filed under overlaps."""

    def sorted_counts(ids):
        return dict(sorted(Counter(zip(ids, ids[1:])).items()))

    checks.check_get_pair_counts(sorted_counts, "overlaps")
    with pytest.raises(CheckFailed, match="not in order of first occurrence"):
        checks.check_get_pair_counts(sorted_counts, "basic")


def test_counts_without_overlaps_fail_with_expected_and_returned():
    def no_overlap(ids):
        out, i = {}, 0
        while i < len(ids) - 1:
            p = (ids[i], ids[i + 1])
            out[p] = out.get(p, 0) + 1
            i += 2 if ids[i] == ids[i + 1] else 1
        return out

    checks.check_get_pair_counts(no_overlap, "basic")
    with pytest.raises(CheckFailed) as info:
        checks.check_get_pair_counts(no_overlap, "overlaps")
    message = str(info.value)
    assert "expected: {(" in message and "returned: {(" in message
