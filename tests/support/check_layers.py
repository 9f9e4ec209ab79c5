#!/usr/bin/env python3
"""check_layers.py - the layering of the sources (README: Layout), named
include by include: `make lint` runs it; the build enforces the same (each
folder of src/ is compiled with the include paths of its own layer and the
ones below it).

  src/base < src/kernels < src/text < src/engine < src/formats < src/core < src/trained
  src/ never includes tui/; tui/gfx/ includes src/ and tui/gfx/ only.

A file includes "name.h": the header of that name in one of the folders. An
include of a higher layer (or of tui/ from src/) prints one line,
file:line: what it includes and why it may not, and the exit status is 1."""
import os
import re
import sys

LAYERS = ["base", "kernels", "text", "engine", "formats", "core", "trained"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def folders():
    where = {}
    for top in ("src", "tui"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            rel = os.path.relpath(dirpath, ROOT)
            for f in files:
                if f.endswith(".h"):
                    if f in where:
                        sys.exit(f"check_layers: two headers named {f}: {where[f]} and {rel}")
                    where[f] = rel
    return where


def rank(folder):
    """(0, layer) for src/LAYER, (1, 0) for tui/gfx, (1, 1) for the rest of tui/."""
    parts = folder.split("/")
    if parts[0] == "src":
        if len(parts) != 2 or parts[1] not in LAYERS:
            return None
        return (0, LAYERS.index(parts[1]))
    return (1, 0) if parts[1:2] == ["gfx"] else (1, 1)


def main():
    where = folders()
    bad = 0
    for dirpath, _, files in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        if not (rel.startswith("src") or rel.startswith("tui")):
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            own = rank(rel)
            path = os.path.join(rel, f)
            if own is None:
                print(f"{path}: src/ holds its files in the layers' folders ({', '.join(LAYERS)})")
                bad = 1
                continue
            with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m or m.group(1) not in where:
                        continue
                    other = where[m.group(1)]
                    theirs = rank(other)
                    if theirs is None or theirs <= own:
                        continue
                    if own[0] == 0 and theirs[0] == 1:
                        why = "src/ never includes tui/"
                    elif own[0] == 0:
                        why = f"{rel} is below {other} (layers: {' < '.join(LAYERS)})"
                    else:
                        why = "tui/gfx includes src/ and tui/gfx only"
                    print(f"{path}:{n}: includes {other}/{m.group(1)}: {why}")
                    bad = 1
    if not bad:
        print("check_layers: every include goes down or across")
    return bad


if __name__ == "__main__":
    sys.exit(main())
