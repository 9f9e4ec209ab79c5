#!/usr/bin/env python3
"""check_sizes.py - the size of the parts (doc/hacking.md: a file over ~700
lines or a function over ~100 is a part waiting for a name): `make lint` runs
it over src/ and tui/.

  python3 tests/support/check_sizes.py          fails on a file over 750 lines
                                                or a function over 120
  python3 tests/support/check_sizes.py --report lists every file over 700 and
                                                function over 100, and passes

A function is a body at the top level of a file whose header ends in a
parameter list: found by matching braces once comments, strings, character
constants and preprocessor lines are blanked out. Its length counts the lines
from its name to its closing brace. Tables of data (static arrays, key tables,
lesson texts) are initializers, not functions, and are not counted as such;
a file made of them may be exempted below, with the reason. Each part too big
prints one line, file:line: what and how long, and the exit status is 1."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILE_LIMIT, FUNC_LIMIT = 750, 120
FILE_AIM, FUNC_AIM = 700, 100

# Files whose length is data, not code: path -> why.
FILE_EXEMPT = {
    # Generated from Unicode's EastAsianWidth.txt (a table of ranges).
    "src/base/utf8_width.h": "generated table",
}
# Functions that are one piece: "path:name" -> why. Empty: keep it so.
FUNC_EXEMPT = {}


def sources():
    for top in ("src", "tui"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def blank(text):
    """The text with comments, strings, character constants and preprocessor
    lines replaced by spaces (newlines kept, so that offsets keep their line)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A directive runs to an unescaped newline.
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def functions(text):
    """(line, name, length) of every function defined in the text."""
    code = blank(text)
    found = []
    depth = 0
    head_start = 0  # where the current top-level declaration began
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[head_start:i]
                m = function_head(head)
                if m:
                    name, at = m
                    start = head_start + at
                    end = match_brace(code, i)
                    first = code.count("\n", 0, start) + 1
                    last = code.count("\n", 0, end) + 1
                    found.append((first, name, last - first + 1))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                head_start = i + 1
        elif c == ";" and depth == 0:
            head_start = i + 1
    return found


def function_head(head):
    """(name, offset of the name) when a declaration head before '{' is a
    function's: ends in a parameter list, assigns nothing."""
    stripped = head.rstrip()
    stripped = re.sub(r"__attribute__\s*\(\(.*?\)\)\s*$", "", stripped).rstrip()
    if not stripped.endswith(")"):
        return None
    # The top-level '=' of an initializer (not one inside the parameter list).
    level = 0
    for c in stripped:
        if c == "(":
            level += 1
        elif c == ")":
            level -= 1
        elif c == "=" and level == 0:
            return None
    # The name stands before the parameter list, the last top-level '(' (an
    # __attribute__((...)) may come first).
    level, open_at = 0, -1
    for k, c in enumerate(stripped):
        if c == "(":
            if level == 0:
                open_at = k
            level += 1
        elif c == ")":
            level -= 1
    m = re.search(r"([A-Za-z_]\w*)\s*$", stripped[:open_at])
    if not m or m.group(1) in ("if", "for", "while", "switch", "sizeof"):
        return None
    return m.group(1), m.start(1)


def match_brace(code, i):
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


# What the parser must find in C it has met: (text, [(line, name, length)]).
SELF_TEST = [
    ("int f(void) {\n    return 1;\n}\n", [(1, "f", 3)]),
    # a table, a struct, a prototype: no function
    ("static const int t[] = {\n  1, 2,\n};\ntypedef struct {\n  int a;\n} S;\nint g(int);\n", []),
    # an attribute before the name, braces in strings, comments, characters and directives
    ('__attribute__((target("avx2"))) static int\nk(const char *s) {\n    /* { */ // {\n'
     '    if (s[0] == \'{\') return \'}\';\n#define X {\n    return "}{";\n}\nint after(void) { return 0; }\n',
     [(2, "k", 6), (8, "after", 1)]),
    # a function returning a pointer, a body with nested blocks, one after another
    ("static const char *\nname(int k) {\n    if (k) {\n        return \"a\";\n    }\n    return 0;\n}\n"
     "void h(void) { }\n", [(2, "name", 6), (8, "h", 1)]),
]


def self_test():
    for text, want in SELF_TEST:
        got = functions(text)
        if got != want:
            sys.exit(f"check_sizes: the parser is wrong: {got} for {text!r}, not {want}")


def main():
    self_test()
    report = "--report" in sys.argv[1:]
    file_limit, func_limit = (FILE_AIM, FUNC_AIM) if report else (FILE_LIMIT, FUNC_LIMIT)
    bad = 0
    for path in sources():
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            text = fh.read()
        lines = text.count("\n")
        if lines > file_limit and path not in FILE_EXEMPT:
            print(f"{path}:1: {lines} lines (more than {file_limit}): split it along its parts")
            bad = 1
        for line, name, length in functions(text):
            if length > func_limit and f"{path}:{name}" not in FUNC_EXEMPT:
                print(f"{path}:{line}: {name} is {length} lines (more than {func_limit}): name its steps")
                bad = 1
    if report:
        return 0
    if not bad:
        print(f"check_sizes: every file within {FILE_LIMIT} lines, every function within {FUNC_LIMIT}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
