#!/usr/bin/env python3
"""Vocabularies whose pieces are terminal escape sequences, and the check
that none of it reaches a terminal raw (tests/e2e_escape.sh).

  hostile.py tokbin SRC DST ID
      a copy of the llama2.c tokenizer.bin SRC with piece ID replaced by
      " " + PIECE (its max_token_length raised to fit).
  hostile.py hf DIR
      hf_fixture.py's GPT-2 folder with a token 300 whose bytes are PIECE
      (byte-level, as GPT-2 writes any byte) that greedy decoding always
      picks: ln_f gives ones whatever the input, and row 300 of the tied
      embedding is the largest against ones.
  hostile.py check FILE [NAME]
      exit 1, saying what and where, when FILE holds invalid UTF-8, a C0
      control but a line feed or a tab (attnviz's own separators: ESC, BEL,
      NUL...), DEL, a C1 control
      (U+0080..U+009F), or a bidirectional formatting character.

PIECE: an OSC that retitles the terminal, a CSI that clears it, the C1 CSI,
RIGHT-TO-LEFT OVERRIDE and NUL.
"""
import os
import struct
import sys

PIECE = b"\x1b]2;PWNED\x07\x1b[2J\xc2\x9b31m\xe2\x80\xaeevil\x00X"
BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}


def tokbin(src, dst, at):
    raw = open(src, "rb").read()
    (maxlen,), o, toks = struct.unpack_from("<i", raw, 0), 4, []
    while o < len(raw):
        score, n = struct.unpack_from("<fi", raw, o)
        toks.append((score, raw[o + 8:o + 8 + n]))
        o += 8 + n
    toks[at] = (toks[at][0], b" " + PIECE)
    out = [struct.pack("<i", max(maxlen, len(PIECE) + 1))]
    out += [struct.pack("<fi", s, len(t)) + t for s, t in toks]
    with open(dst, "wb") as f:
        f.write(b"".join(out))


def hf(d):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hf_fixture  # noqa: E402 (needs numpy)
    hf_fixture.write(d, "gpt2", hostile=PIECE)


def check(path, name):
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "%s: invalid UTF-8 at byte %d" % (name, e.start)
    for i, ch in enumerate(text):
        cp = ord(ch)
        bad = (cp < 0x20 and ch not in "\n\t") or cp == 0x7F or 0x80 <= cp <= 0x9F or cp in BIDI
        if bad:
            return "%s: U+%04X at character %d: ...%r..." % (name, cp, i, text[max(0, i - 20):i + 20])
    return None


def main(argv):
    if len(argv) == 5 and argv[1] == "tokbin":
        tokbin(argv[2], argv[3], int(argv[4]))
        return 0
    if len(argv) == 3 and argv[1] == "hf":
        hf(argv[2])
        return 0
    if len(argv) in (3, 4) and argv[1] == "check":
        why = check(argv[2], argv[3] if len(argv) == 4 else argv[2])
        if why:
            print(why)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
