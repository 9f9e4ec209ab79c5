#!/usr/bin/env python3
"""english_words.py ALLOWED SCREEN [TEXT]: the English words left on a screen
that should be all Korean (tests/e2e_korean.sh). A word is a run of three or
more ASCII letters; it is allowed when ALLOWED lists it (one word or phrase a
line, '#' comments: symbols, key names, units, file formats), or is part of
a key=value field of the status line (a contract) or an option name, or when TEXT
(the sentence or model text shown) contains it. Command-line options
(--model, -H) are names, never translated: they are skipped; a word may hold
digits (stories260K). Prints "LINE: WORD" for each word left and exits 1
when there is one."""
import re
import sys

allowed = set()
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if line:
        allowed.add(line.lower())
screen = open(sys.argv[2], encoding="utf-8", errors="replace").read()
text = open(sys.argv[3], encoding="utf-8", errors="replace").read().lower() if len(sys.argv) > 3 else ""
left = []
for n, line in enumerate(screen.splitlines(), 1):
    line = re.sub(r"(?<![\w-])--?[A-Za-z][\w-]*", " ", line)
    # the status line's key=value fields are a contract (DESIGN.md), never translated
    line = re.sub(r"\b[a-z_]+=\S*", " ", line)
    # file paths and special tokens (<pad>, cut to <pa by a narrow column)
    line = re.sub(r"\S*/\S*|<[A-Za-z|_]*>?", " ", line)
    for m in re.finditer(r"(?<![0-9])[A-Za-z][A-Za-z0-9_]*[A-Za-z0-9]", line):
        w = m.group(0)
        # symbols (O_1, s_j, xb2, PC1) and the monochrome shades (oooo, OOo)
        symbol = "_" in w or any(ch.isdigit() for ch in w) or set(w) <= set("oO")
        if len(w) < 3 or symbol or w.lower() in allowed or w.lower() in text:
            continue
        left.append("%d: %s    | %s" % (n, w, line.strip()[:100]))
for l in left:
    print(l)
sys.exit(1 if left else 0)
