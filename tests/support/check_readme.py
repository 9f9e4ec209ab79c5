#!/usr/bin/env python3
"""Checks the manual's examples (README.md and doc/*.md) against the binary,
so that they cannot drift. In every fenced block, a line "$ ./attnviz ARGS" (a
trailing "  # comment" is not part of it) is run from the repository root
with the binary under test; the lines after it, up to the next "$" line or
the end of the block, must appear in its standard output in that order,
each as a whole line (trailing blanks ignored); a line "..." skips any
number of lines.

Usage: check_readme.py ATTNVIZ FILE.md...   (exit 0 when every example holds)
"""
import os
import re
import shlex
import subprocess
import sys


def examples(text):
    """(line number, command, [expected lines]) of every $ line."""
    out, block, cur = [], False, None
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            if cur:
                out.append(cur)
            block, cur = not block, None
            continue
        if not block:
            continue
        if line.startswith("$ ./attnviz"):
            if cur:
                out.append(cur)
            cmd = re.sub(r"\s{2,}#.*$", "", line[2:])
            cur = (n, cmd, [])
        elif cur:
            cur[2].append(line.rstrip())
    return out


def main(binary, files):
    bad, count = 0, 0
    for readme in files:
        b, c = check(readme, binary)
        bad, count = bad + b, count + c
    print(f"manual: {count} examples in {len(files)} files, {bad} failing")
    return 1 if bad else 0


def check(readme, binary):
    """(failing, examples) of one file."""
    text = open(readme, encoding="utf-8").read()
    bad = 0
    exs = examples(text)
    for n, cmd, want in exs:
        args = shlex.split(cmd)
        args[0] = binary
        env = dict(os.environ, LC_ALL="C.UTF-8", COLUMNS="80")
        env.pop("NO_COLOR", None)
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, stdin=subprocess.DEVNULL)
        got = [l.rstrip() for l in r.stdout.decode("utf-8", "replace").split("\n")]
        at, skip = 0, True  # the first line may come anywhere
        for w in want:
            if w == "...":
                skip = True
                continue
            if not w and not skip:
                # a blank expected line matches a blank output line at this point
                pass
            found = -1
            for k in range(at, len(got)):
                if got[k] == w:
                    found = k
                    break
                if not skip and w:
                    break  # without "..." the lines follow one another
            if found < 0:
                print(f"{readme}:{n}: `{cmd}`: expected line not found in order:\n    {w!r}")
                near = got[at:at + 3]
                print("  output there:\n" + "\n".join("    " + repr(l) for l in near))
                bad += 1
                break
            at, skip = found + 1, False
    return bad, len(exs)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
