#!/usr/bin/env python3
"""screen_ramp.py - the colours of a heatmap as the terminal shows them.

Reads `tmux capture-pane -p -e` of attnviz's heatmap of weights on standard
input, finds every weight printed in a cell ("0.52", ".52", "1.00") with the
background colour it was drawn on, and checks that the colour moves away from
the terminal's background in lightness as the weight grows: CIE L* of xterm's
palette (the terminal's default background is black on a dark theme, white on
a light one), never closer to the background for a larger weight, and the
weights under 0.06 (the first step of every ramp) on the background itself. Prints one line: "ok" with the colours found (bg
index, L*, the weights drawn on it), or what is wrong; exit status 1 then.

usage: screen_ramp.py dark|light [min_colours]
"""
import re
import sys

BASE = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
        (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255),
        (0, 255, 255), (255, 255, 255)]
LEVEL = [0, 95, 135, 175, 215, 255]


def rgb(index):
    if index < 16:
        return BASE[index]
    if index < 232:
        k = index - 16
        return (LEVEL[k // 36], LEVEL[k // 6 % 6], LEVEL[k % 6])
    g = 8 + 10 * (index - 232)
    return (g, g, g)


def lstar(c):
    def lin(v):
        v /= 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    y = 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
    f = y ** (1.0 / 3) if y > 216.0 / 24389 else (24389.0 / 27 * y + 16) / 116
    return 116 * f - 16


def cells(line):
    """(char, bg, reverse) for each character of one captured line."""
    out, bg, rev, i = [], None, False, 0
    while i < len(line):
        m = re.match(r"\x1b\[([0-9;]*)m", line[i:])
        if m:
            ps = [int(p) if p else 0 for p in m.group(1).split(";")]
            k = 0
            while k < len(ps):
                p = ps[k]
                if p == 0:
                    bg, rev = None, False
                elif p == 7:
                    rev = True
                elif p == 27:
                    rev = False
                elif p == 49:
                    bg = None
                elif 40 <= p <= 47:
                    bg = p - 40
                elif 100 <= p <= 107:
                    bg = p - 100 + 8
                elif p in (38, 48) and k + 2 < len(ps) and ps[k + 1] == 5:
                    if p == 48:
                        bg = ps[k + 2]
                    k += 2
                k += 1
            i += m.end()
            continue
        if line[i] == "\x1b":  # another sequence: skip it
            m = re.match(r"\x1b\[[0-9;?]*[A-Za-z]", line[i:])
            i += m.end() if m else 1
            continue
        out.append((line[i], bg, rev))
        i += 1
    return out


def main():
    theme = sys.argv[1]
    min_colours = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    l_bg = 100.0 if theme == "light" else 0.0
    seen = []  # (weight, bg)
    for line in sys.stdin.read().split("\n"):
        cs = cells(line)
        text = "".join(c for c, _, _ in cs)
        # A heatmap row ends in its statistics: "1.000  3.12 0.20" (sum, bits, max).
        stats = text.rfind(" 1.000 ")
        if stats < 0:
            stats = text.rfind(" 0.000")
        if stats < 0:
            continue
        for m in re.finditer(r"(?<![0-9.])([01]?\.[0-9][0-9])(?![0-9])", text[:stats]):
            _, bg, rev = cs[m.start()]
            if rev:  # the cursor: reversed on the terminal
                continue
            seen.append((float(m.group(1)), bg))
    if not seen:
        print("no weights found on the screen")
        return 1
    seen.sort(key=lambda s: s[0])
    dist = lambda bg: abs((l_bg if bg is None else lstar(rgb(bg))) - l_bg)
    bad = []
    for (w0, b0), (w1, b1) in zip(seen, seen[1:]):
        if w1 > w0 and dist(b1) + 1e-9 < dist(b0):
            bad.append("%.2f on %s (%.1f from the background) after %.2f on %s (%.1f)" % (w1, b1, dist(b1), w0, b0,
                                                                                          dist(b0)))
    colours = {}
    for w, bg in seen:
        colours.setdefault(bg, []).append(w)
    # The first step of every ramp is the background: 1/13 of the range in 256
    # colours, 1/5 in 8; a weight under 0.06 is in it on both.
    low = [s for s in seen if s[0] < 0.06 and s[1] is not None]
    if low:
        bad.append("weight %.2f is not on the background (bg %s)" % low[0])
    if not any(s[0] < 0.06 for s in seen):
        bad.append("no weight under 0.06 on the screen: the background step is not tested")
    summary = ", ".join("%s L*%.0f: %.2f..%.2f" % ("bg" if bg is None else bg, l_bg if bg is None else lstar(rgb(bg)),
                                                 min(ws), max(ws))
                        for bg, ws in sorted(colours.items(), key=lambda kv: min(kv[1])))
    if len(colours) < min_colours:
        bad.append("only %d colours: %s" % (len(colours), summary))
    if bad:
        print("; ".join(bad[:5]))
        return 1
    print("ok %d weights, %d colours: %s" % (len(seen), len(colours), summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
