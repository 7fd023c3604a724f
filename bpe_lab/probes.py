"""Inputs that are not plain data, made where the learner's function runs: files, and streams of lines.

Assignment 06 has functions that read a file (``chunk_counts_file(path, ...)``) or an iterable of strings
(``encode_iterable(lines, ...)``, which returns an iterator). Neither a path on the grader's disk nor a generator can
travel to the grading worker as plain data, so the checks send a :class:`FileBytes` (a file's name and bytes) or a
list of lines, and this module makes the real thing on the side of the function: :func:`materialized` writes the
file into a temporary folder and passes its path; :func:`stream_probe` feeds the lines through a generator, consumes
what the function returns and reports the ids with what it saw (how many lines were read before the first id).

Standard library only: :data:`autograder.judge.WORKER_SOURCE` puts this text inside the worker, as it does the
codec's; the learner's ``check`` uses the same functions in the kernel.

Example:
    >>> probe = stream_probe(lambda lines, n: (len(line) * n for line in lines), ["ab", "c"], (10,), keep=5)
    >>> probe["ids"], probe["count"], probe["first_read"], probe["lazy"]
    ([20, 10], 2, 1, True)
"""

# No "from __future__" import here: judge.WORKER_SOURCE puts this text inside the worker's own.
import array
import gc
import itertools
import os
import tempfile
import zlib

from bpe_lab.codec import FileBytes  # judge.WORKER_SOURCE drops this line: the codec is inlined before


def materialized(args, folder=None):
    """``args`` with each :class:`FileBytes` written to a file (in ``folder``, else a new temporary folder) and
    replaced by its path, a ``str``; the other arguments as they are."""
    out = []
    for arg in args:
        if isinstance(arg, FileBytes):
            folder = folder or tempfile.mkdtemp(prefix="bpe-files-")
            path = os.path.join(folder, os.path.basename(arg.name) or "file.txt")
            with open(path, "wb") as handle:
                handle.write(arg.data)
            arg = path
        out.append(arg)
    return out


CRC_BLOCK = 4096


def _malloc_trim():
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim  # glibc's; elsewhere there is none
    except (ImportError, AttributeError, OSError):
        return None


_TRIM = _malloc_trim()


def release_free_memory():
    """Give the memory the process has freed back to the system (a collection, then glibc's ``malloc_trim``), so
    that what a measurement that follows sees grow is what it allocates, not what an earlier one freed and left to
    reuse (a second run of a list-building encoder would otherwise grow nothing). Returns nothing.

    Example:
        >>> release_free_memory()
    """
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


PROBE_BATCH = 1024
"""Items :func:`stream_probe` takes from the function's result at a time (checked and summed in C, not one by one)."""


def stream_probe(fn, lines, args, keep, repeat=1):
    """Call ``fn(source, *args)``, where ``source`` yields ``lines`` ``repeat`` times over, and consume its result.

    Returns a dict: ``ids`` (the first ``keep`` items), ``count`` (how many), ``crc`` (CRC-32 of all of them as
    4-byte little-endian ints), ``first_read`` (lines read when the first item came, ``None`` if none came),
    ``read`` (lines read in all), ``lazy`` (the result was not a list or tuple), and ``bad`` (the ``repr`` of the
    first item that is not an int from 0 to 2**31 - 1, else ``None``). An exception of ``fn`` propagates, unless a
    bad item came before it.

    The result is taken :data:`PROBE_BATCH` items at a time and each batch checked at once (a quarter of the cost
    of the 06 memory check's 1.8 million ids went to checking them one by one): so after a bad item, up to
    ``PROBE_BATCH - 1`` more may be taken (and lines read) before the probe stops.
    """
    read = [0]

    def source():
        for _ in range(repeat):
            for line in lines:
                read[0] += 1
                yield line

    result = fn(source(), *args)
    lazy = not isinstance(result, (list, tuple))
    items = iter(result)
    kept: list[int] = []
    count, crc, first_read, bad = 0, 0, None, None
    while True:
        batch: list = []
        error = None
        try:
            if first_read is None:  # the first item on its own: how many lines were read when it came
                batch.extend(itertools.islice(items, 1))
                first_read = read[0] if batch else None
            batch.extend(itertools.islice(items, PROBE_BATCH - len(batch)))
        except Exception as exc:  # the items before it are in the batch: a bad one among them comes first
            error = exc
        good = len(batch)
        if batch and not (set(map(type, batch)) == {int} and min(batch) >= 0 and max(batch) < 2**31):
            good = next(i for i, item in enumerate(batch) if type(item) is not int or not 0 <= item < 2**31)
            bad = repr(batch[good])[:80]
            del batch[good:]
        count += len(batch)
        if len(kept) < keep:
            kept += batch[: keep - len(kept)]
        crc = zlib.crc32(_little_endian(array.array("i", batch)), crc)
        if bad is not None:
            break
        if error is not None:
            raise error
        if good < PROBE_BATCH:  # the result ended
            break
    return {
        "ids": kept,
        "count": count,
        "crc": crc,
        "first_read": first_read,
        "read": read[0],
        "lazy": lazy,
        "bad": bad,
    }


def _little_endian(block):
    if array.array("i", [1]).tobytes()[0] != 1:  # a big-endian machine
        block = array.array("i", block)
        block.byteswap()
    return block.tobytes()


def ids_crc(ids):
    """The ``crc`` :func:`stream_probe` reports for these ids (the grader's expected value).

    Example:
        >>> ids_crc([1, 2, 3]) == stream_probe(lambda lines: iter([1, 2, 3]), [], (), keep=0)["crc"]
        True
    """
    crc = 0
    for start in range(0, len(ids), CRC_BLOCK):
        crc = zlib.crc32(_little_endian(array.array("i", ids[start : start + CRC_BLOCK])), crc)
    return crc
