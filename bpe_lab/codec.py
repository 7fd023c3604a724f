"""Plain data as JSON with tags for what JSON lacks: the one codec of the course (standard library only).

It carries a learner's arguments and answers between the grader and its worker process
(:mod:`autograder.isolation.judge_worker`, which gets this text in place of its import line: it cannot import packages),
and the expected answers of the public cases that :func:`bpe_lab.selfcheck.check` reads
(:mod:`bpe_lab.expected`). Tags: ``{"t": [...]}`` a tuple, ``{"d": [[key, value], ...]}`` a dict (any mapping,
in its order), ``{"s": [...]}`` a set, ``{"b": "..."}`` bytes (as latin-1 text), ``{"F": [name, "..."]}`` a
:class:`FileBytes` (a file to make where a function runs, see :mod:`bpe_lab.probes`; never accepted in an answer).

Example:
    >>> pack({("a", "b"): 2})
    {'d': [[{'t': ['a', 'b']}, 2]]}
    >>> unpack(pack({("a", "b"): 2, "x": {b"ab"}}))
    {('a', 'b'): 2, 'x': {b'ab'}}
"""

# No "from __future__" import here: judge.WORKER_SOURCE puts this text inside the worker's own.
import collections.abc
import json

MAX_DEPTH = 60
"""How deeply nested a value :func:`pack` takes."""


class FileBytes:
    """A file to make where the function runs: its name (no folder) and its bytes; shown by name and size."""

    def __init__(self, name, data):
        self.name, self.data = str(name), bytes(data)

    def __repr__(self):
        head = self.data[:40].decode("utf-8", errors="replace")
        return f"<file {self.name!r}: {len(self.data):,} bytes, {head!r}{'...' if len(self.data) > 40 else ''}>"

    def __eq__(self, other):
        return isinstance(other, FileBytes) and (self.name, self.data) == (other.name, other.data)

    def __hash__(self):
        return hash((self.name, self.data))

    def __deepcopy__(self, memo):
        return self


class Unreadable(Exception):
    """A value that is not plain data (a generator, a lambda, an object of the student's own class)."""


_SCALARS = frozenset((bool, int, float, str))
"""Types that JSON keeps as they are (their subclasses are packed as the type itself)."""


def pack(value, depth=0):
    """``value`` (plain data: None, bool, int, float, str, tuple, list, mapping, set, bytes) as JSON-ready data.

    A subclass of a built-in type is encoded as that type (a ``Counter`` as a dict, a ``str`` subclass as a str).

    Raises:
        Unreadable: a value that is not plain data, or nested more than :data:`MAX_DEPTH` levels deep.
    """
    if depth > MAX_DEPTH:
        raise Unreadable(f"a value nested more than {MAX_DEPTH} levels deep")
    kind = type(value)
    if value is None or kind in _SCALARS:
        return value
    if kind is list:  # ids, the common case: one copy (a thread of the code may change the list), one check
        items = list(value)
        if all(v is None or type(v) in _SCALARS for v in items):
            return items
        return [pack(v, depth + 1) for v in items]
    if kind is tuple:  # the built-in containers first, by their exact type (no check of each other type)
        if all(v is None or type(v) in _SCALARS for v in value):  # a pair of ids
            return {"t": list(value)}
        if depth < MAX_DEPTH and all(type(v) is bytes for v in value):  # a pair of tokens' bytes
            return {"t": [{"b": v.decode("latin-1")} for v in value]}
        return {"t": [pack(v, depth + 1) for v in value]}
    if kind is dict:  # a plain key or value is taken as it is, and so are bytes (no call for each)
        scalars, deeper = _SCALARS, depth + 1
        return {
            "d": [
                [
                    k
                    if k is None or type(k) in scalars
                    else {"b": k.decode("latin-1")}
                    if type(k) is bytes and deeper <= MAX_DEPTH
                    else pack(k, deeper),
                    v if v is None or type(v) in scalars else pack(v, deeper),
                ]
                for k, v in value.items()
            ]
        }
    if kind is bytes:
        return {"b": value.decode("latin-1")}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, tuple):
        if type(value) is tuple and all(v is None or type(v) in _SCALARS for v in value):  # a pair of ids
            return {"t": list(value)}
        return {"t": [pack(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [pack(v, depth + 1) for v in value]
    if isinstance(value, collections.abc.Mapping):
        pairs = value.items() if type(value) is dict else ((k, value[k]) for k in value)
        return {"d": [[pack(k, depth + 1), pack(v, depth + 1)] for k, v in pairs]}
    if isinstance(value, (set, frozenset)):
        return {"s": [pack(v, depth + 1) for v in value]}
    if isinstance(value, (bytes, bytearray)):
        return {"b": bytes(value).decode("latin-1")}
    if isinstance(value, FileBytes):
        return {"F": [value.name, value.data.decode("latin-1")]}
    raise Unreadable(type(value).__name__)


def unpack(data):
    """The value :func:`pack` made ``data`` from (trusted data: the grader's own; see ``judge.decode_answer``).

    Raises:
        ValueError: an unknown tag.
    """
    if data is None or type(data) in _SCALARS:
        return data
    if type(data) is list:
        if all(v is None or type(v) in _SCALARS for v in data):
            return list(data)
        return [unpack(v) for v in data]
    ((tag, body),) = data.items()
    if tag == "t":
        return tuple(unpack(v) for v in body)
    if tag == "d":
        return {unpack(k): unpack(v) for k, v in body}
    if tag == "s":
        return {unpack(v) for v in body}
    if tag == "b":
        return body.encode("latin-1")
    if tag == "F":
        return FileBytes(body[0], body[1].encode("latin-1"))
    raise ValueError(f"unknown tag {tag!r}")


def _tagged(node):
    if len(node) == 1:
        ((tag, body),) = node.items()
        if tag == "t":
            return tuple(body)
        if tag == "d":
            return {key: value for key, value in body}
        if tag == "s":
            return set(body)
        if tag == "b":
            return body.encode("latin-1")
        if tag == "F" and isinstance(body, list) and len(body) == 2:
            return FileBytes(body[0], body[1].encode("latin-1"))
    return node


def loads(text):
    """JSON text with every tagged value decoded as it is parsed (faster than ``unpack(json.loads(text))``).

    For trusted data in which every object of one key ``"t"``, ``"d"``, ``"s"`` or ``"b"`` is a tag (the files
    of :mod:`bpe_lab.expected`); objects of other keys are left as dicts.

    Example:
        >>> loads('{"args": {"t": [{"b": "ab"}, {"d": [[{"t": [1, 2]}, 3]]}]}}')
        {'args': (b'ab', {(1, 2): 3})}
    """
    return json.loads(text, object_hook=_tagged)
