#!/usr/bin/env python3
"""Tables of an A/B log of bench/segmented-ab.sh: for each size and value type, one row per (distribution, redscan
implementation) and one column per library variant, each cell "fastest-slowest ms (x_cub range)" over the variant's
runs, and CUB's and the flat operation's ranges under the table (x_cub: the reference's time over ours, in the same
run). Reads the log on standard input or from the file named, writes Markdown to standard output.

    bench/segmented_ab_table.py ab.log > ab-tables.md

The log's sections start with lines "== VARIANT run R SIZE [PARTS]" (the script's), followed by segmented_compare's
rows: dist type op impl ms GB/s x_copy [x_cub [x_flat|x_seg]] [OVER 2]."""
import collections
import re
import sys

HEAD = re.compile(r"^== (\S+) run (\d+) (\S+)(?: (\S+))?")
ROW = re.compile(r"^(\S+)\s+(\S+)\s+(\S+)\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)(?:\s+([\d.]+))?(?:\s+([\d.]+))?"
                 r"(?:\s+OVER 2)?\s*$")


def span(xs, fmt):
    lo, hi = min(xs), max(xs)
    return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    # (size, type) -> (dist, impl) -> variant -> [(ms, x_cub)]
    cells = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    refs = collections.defaultdict(lambda: collections.defaultdict(list))  # (size, type) -> impl -> [ms]
    variants = []
    variant = size = None
    for line in src:
        m = HEAD.match(line)
        if m:
            variant, size = m.group(1), m.group(3)
            if variant not in variants:
                variants.append(variant)
            continue
        m = ROW.match(line.rstrip("\n"))
        if not m or variant is None or m.group(1) == "dist":
            continue
        dist, typ, _op, impl, ms = m.group(1), m.group(2), m.group(3), m.group(4), float(m.group(5))
        key = (size, typ if typ != "-" else "copy")
        if not impl.startswith("redscan") or "flat" in impl:
            refs[key][dist.split(":")[-1] + " " + impl].append(ms)
            continue
        x_cub = float(m.group(8)) if m.group(8) else None
        cells[key][(dist, impl)][variant].append((ms, x_cub))
    for key in sorted(cells):
        print("### %s, %s\n" % key)
        print("| %s | %s |" % ("dist, implementation", " | ".join(variants)))
        print("| --- |" + " --- |" * len(variants))
        for (dist, impl), by in cells[key].items():
            out = []
            for v in variants:
                runs = by.get(v)
                if not runs:
                    out.append("")
                    continue
                text = span([r[0] for r in runs], "%.3f")
                xs = [r[1] for r in runs if r[1] is not None]
                out.append(text + (" (%s)" % span(xs, "%.2f") if xs else ""))
            print("| %s %s | %s |" % (dist, impl, " | ".join(out)))
        print()
        for name, ms in refs[key].items():
            print("- %s: %s ms" % (name, span(ms, "%.3f")))
        print()


if __name__ == "__main__":
    main()
