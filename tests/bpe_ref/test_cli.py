"""The command line ``python -m bpe_ref``, the codes file, and equality with the real ``subword-nmt``.

The ``subword-nmt`` tests run its own command line (``subword_nmt.subword_nmt.main``, the ``subword-nmt`` console
script) on the committed excerpt ``data/kjv_genesis.txt`` and compare files byte for byte.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import apply_bpe
from bpe_ref.__main__ import main
from bpe_ref.codes import (
    Encoder,
    apply_codes,
    count_words,
    format_codes,
    parse_codes,
    read_codes,
    train_codes,
    write_codes,
)
from bpe_ref.fast import train_fast, train_plain

GENESIS = Path(__file__).resolve().parents[2] / "data" / "kjv_genesis.txt"

# leading/trailing spaces, blank lines, runs of spaces, CRLF, a tab inside a word, a form feed and U+2028 (which
# Python's codecs reader, and so subword-nmt, treats as line ends), non-ASCII letters, one-letter words
ODD_TEXT = "lo wer  lowest\n\n  new\tnewer \r\nx\x0cy z\u2028q  \n \nété a\n"


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe_ref", *args], input=stdin, capture_output=True, check=False)


def run_subword_nmt(*args: str) -> None:
    """Run the ``subword-nmt`` console script's ``main`` in a fresh interpreter (it rewraps the std streams)."""
    code = "import sys; from subword_nmt.subword_nmt import main; sys.argv[0] = 'subword-nmt'; main()"
    subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True)


# ---------------------------------------------------------------------------------------------------------------
# word counting and the codes file
# ---------------------------------------------------------------------------------------------------------------


def subword_nmt_words(text: str) -> dict[str, int]:
    """subword-nmt's get_vocabulary over a codecs reader, spelled out: lines, strip, split on " "."""
    counts: dict[str, int] = {}
    for line in text.splitlines(True):
        for word in line.strip("\r\n ").split(" "):
            if word:
                counts[word] = counts.get(word, 0) + 1
    return counts


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n\r\t\x0c\u2028é", max_size=40))
def test_count_words_equals_subword_nmt_rule(text):
    assert list(count_words(text).items()) == list(subword_nmt_words(text).items())


def test_count_words_splits_like_subword_nmt():
    assert count_words("the cat\n  the  dog \r\nthe\n\n") == {"the": 3, "cat": 1, "dog": 1}
    assert count_words("a\tb c\x0cd") == {"a\tb": 1, "c\x0c": 1, "d": 1}
    assert count_words("") == {}
    with pytest.raises(TypeError, match="bytes"):
        count_words(b"a b")


def test_codes_round_trip(tmp_path):
    merges = [("e", "s"), ("es", "t</w>"), ("l", "o"), ("e", "s")]
    text = format_codes(merges)
    assert text == "#version: 0.2\ne s\nes t</w>\nl o\ne s\n"
    assert parse_codes(text) == (merges, "attached")
    assert parse_codes(format_codes(merges, "separate")) == (merges, "separate")
    assert parse_codes(format_codes(merges, "none")) == (merges, "none")
    assert parse_codes("e s\r\nes t</w>\n\n") == ([("e", "s"), ("es", "t</w>")], "separate")  # no header: 0.1
    assert parse_codes("#version: 0.2\n") == ([], "attached")
    path = tmp_path / "codes"
    write_codes(str(path), merges, "attached")
    assert read_codes(str(path)) == (merges, "attached")


@pytest.mark.parametrize(
    ("call", "error", "named"),
    [
        (lambda: parse_codes("#version: 0.2\ne s\nabc\n"), ValueError, "line 3"),
        (lambda: parse_codes("#version: 0.3\ne s\n"), ValueError, "0.3"),
        (lambda: parse_codes(b"e s"), TypeError, "bytes"),
        (lambda: format_codes([("a b", "c")]), ValueError, "'a b'"),
        (lambda: format_codes([("a", "")]), ValueError, "('a', '')"),
        (lambda: format_codes([("a", "b")], "after"), ValueError, "'after'"),
        (lambda: Encoder([("a", "b")], separator=None), TypeError, "None"),
        (lambda: Encoder([("a", "b")]).segment(""), ValueError, "''"),
    ],
)
def test_bad_codes_input_is_named(call, error, named):
    with pytest.raises(error) as caught:
        call()
    assert named in str(caught.value)


def test_encoder_matches_apply_bpe_by_rank():
    merges = train_fast(count_words(GENESIS.read_text(encoding="utf-8")), 300, marker="separate")
    encoder = Encoder(merges, "separate")
    for word in ["beginning", "created", "firmament", "x", "unheard-of", "Abrahamic"]:
        expected = apply_bpe(word, merges)
        if expected[-1] == "</w>":
            expected = expected[:-1]
        else:
            expected[-1] = expected[-1][: -len("</w>")]
        assert list(encoder.segment(word)) == expected
    assert apply_codes("ab ab\n", [("a", "b")], "none") == "ab ab\n"
    assert apply_codes("abc\n", [("a", "b")], "none", separator="+") == "ab+ c\n"


# ---------------------------------------------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------------------------------------------


def test_cli_round_trip(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest\nnewer newest  widest\nlow low\n", encoding="utf-8")
    codes = tmp_path / "codes"
    assert main(["train", str(corpus), "--merges", "8", "--min-frequency", "1", "-o", str(codes)]) == 0
    merges, marker = read_codes(str(codes))
    assert marker == "attached"
    assert merges == train_fast(count_words(corpus.read_text()), 8, marker="attached")

    out = tmp_path / "out.txt"
    assert main(["apply", "--codes", str(codes), str(corpus), "-o", str(out)]) == 0
    segmented = out.read_text(encoding="utf-8")
    assert "@@ " in segmented
    assert segmented.replace("@@ ", "") == "low lower lowest\nnewer newest widest\nlow low\n"


@pytest.mark.parametrize("tie_break", ["largest", "smallest", "first"])
@pytest.mark.parametrize("marker", ["separate", "attached", "none"])
def test_cli_train_options(tmp_path, tie_break, marker):
    lines = GENESIS.read_text(encoding="utf-8").splitlines(True)[:40]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(lines), encoding="utf-8")
    codes = tmp_path / "codes"
    options = ["--merges", "60", "--tie-break", tie_break, "--marker", marker, "--min-frequency", "3"]
    assert main(["train", str(corpus), *options, "-o", str(codes)]) == 0
    merges, read_marker = read_codes(str(codes))
    assert read_marker == marker
    words = count_words("".join(lines))
    assert merges == train_plain(words, 60, tie_break, marker=marker, min_frequency=3)
    assert main(["train", str(corpus), *options, "--trainer", "plain", "-o", str(tmp_path / "plain")]) == 0
    assert (tmp_path / "plain").read_bytes() == codes.read_bytes()


def test_cli_as_a_program_with_stdin_and_stdout(tmp_path):
    trained = run_cli("train", "-", "--merges", "5", stdin=b"aaa aaa aab aab\n")
    assert trained.returncode == 0, trained.stderr
    assert trained.stdout.decode() == format_codes(train_codes("aaa aaa aab aab\n", 5))
    codes = tmp_path / "codes"
    codes.write_bytes(trained.stdout)
    applied = run_cli("apply", "--codes", str(codes), stdin=b"aab  aaa\r\nab\n")
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == b"aab aaa\r\na@@ b\n"


def test_cli_errors(tmp_path):
    bad_marker = run_cli("train", "x.txt", "--merges", "3", "--marker", "end")
    assert bad_marker.returncode == 2 and b"'end'" in bad_marker.stderr
    bad_count = run_cli("train", "x.txt", "--merges", "-3")
    assert bad_count.returncode == 2 and b"-3" in bad_count.stderr
    missing = run_cli("train", str(tmp_path / "nothing.txt"), "--merges", "3")
    assert missing.returncode == 1 and b"nothing.txt" in missing.stderr
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\xe9\n".encode("latin-1"))
    not_utf8 = run_cli("train", str(latin1), "--merges", "3")
    assert not_utf8.returncode == 1 and b"UTF-8" in not_utf8.stderr
    bad_codes = tmp_path / "codes"
    bad_codes.write_text("#version: 0.2\na b c\n", encoding="utf-8")
    unreadable = run_cli("apply", "--codes", str(bad_codes), stdin=b"abc\n")
    assert unreadable.returncode == 1 and b"line 2" in unreadable.stderr


# ---------------------------------------------------------------------------------------------------------------
# equality with subword-nmt
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def subword_nmt_codes(tmp_path_factory):
    """``subword-nmt learn-bpe -s 5000`` (default --min-frequency 2) on Genesis: it stops early, on the frequency."""
    pytest.importorskip("subword_nmt")
    folder = tmp_path_factory.mktemp("subword_nmt")
    codes = folder / "codes.snmt"
    run_subword_nmt("learn-bpe", "-s", "5000", "-i", str(GENESIS), "-o", str(codes))
    return codes


def test_train_equals_subword_nmt_learn_bpe(tmp_path, subword_nmt_codes):
    ours = tmp_path / "codes"
    options = ["--merges", "5000", "--marker", "attached", "--tie-break", "largest", "--min-frequency", "2"]
    assert main(["train", str(GENESIS), *options, "-o", str(ours)]) == 0
    merges, _ = read_codes(str(ours))
    assert 2000 < len(merges) < 5000  # the run ended on --min-frequency, as subword-nmt's did
    assert ours.read_bytes() == subword_nmt_codes.read_bytes()


def test_apply_equals_subword_nmt_apply_bpe(tmp_path, subword_nmt_codes):
    for name, text in [("genesis.txt", GENESIS.read_text(encoding="utf-8")), ("odd.txt", ODD_TEXT)]:
        source = tmp_path / name
        source.write_bytes(text.encode("utf-8"))
        theirs, ours = tmp_path / f"{name}.snmt", tmp_path / f"{name}.ours"
        run_subword_nmt("apply-bpe", "-c", str(subword_nmt_codes), "-i", str(source), "-o", str(theirs))
        assert main(["apply", "--codes", str(subword_nmt_codes), str(source), "-o", str(ours)]) == 0
        assert ours.read_bytes() == theirs.read_bytes(), name
    assert "@@ " in (tmp_path / "genesis.txt.ours").read_text(encoding="utf-8")


def test_separate_marker_codes_apply_like_subword_nmt_version_0_1(tmp_path):
    """Codes learned with a separate ``</w>`` are written as ``#version: 0.1``, which subword-nmt applies the same."""
    pytest.importorskip("subword_nmt")
    text = "".join(GENESIS.read_text(encoding="utf-8").splitlines(True)[:300]) + ODD_TEXT
    source = tmp_path / "source.txt"
    source.write_bytes(text.encode("utf-8"))
    codes = tmp_path / "codes"
    assert main(["train", str(source), "--merges", "400", "--marker", "separate", "-o", str(codes)]) == 0
    assert codes.read_text(encoding="utf-8").startswith("#version: 0.1\n")
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    run_subword_nmt("apply-bpe", "-c", str(codes), "-i", str(source), "-o", str(theirs))
    assert main(["apply", "--codes", str(codes), str(source), "-o", str(ours)]) == 0
    assert ours.read_bytes() == theirs.read_bytes()


def test_a_repeated_merge_keeps_its_first_rank_and_later_merges_still_apply():
    """A codes file that lists a merge twice: the rank of every later merge is its line, so all still apply."""
    encoder = Encoder([("a", "b"), ("a", "b"), ("b", "c</w>")])
    assert encoder.segment("bc") == ("bc",)
    assert encoder.segment_line("bc ab\n") == "bc a@@ b\n"


def test_a_repeated_merge_applies_like_subword_nmt(tmp_path):
    pytest.importorskip("subword_nmt")
    codes, source, theirs = tmp_path / "codes", tmp_path / "source.txt", tmp_path / "theirs"
    codes.write_text("#version: 0.2\na b\na b\nb c</w>\nab c</w>\n", encoding="utf-8")
    source.write_text("bc ab abc cab\n", encoding="utf-8")
    run_subword_nmt("apply-bpe", "-c", str(codes), "-i", str(source), "-o", str(theirs))
    assert apply_codes(source.read_text(encoding="utf-8"), read_codes(str(codes))[0]) == theirs.read_text("utf-8")
