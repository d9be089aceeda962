#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The memscope authors.
"""Compare `memscope __unwind FILE` with binutils' reading of FILE's CFI.

usage: unwind_readelf.py FILE DUMP

DUMP is the builder's tables as text.  The expected ones come from
`readelf -wN -wF FILE` (the CFI rows, interpreted: CFA, each register's
rule) and `readelf -wN -wf FILE` (the raw instructions: which expression
a CFA of "exp" is); -wN: the object's own CFI, no debuglink followed.  Each readelf row becomes the text the builder prints
for its rule:

  CFA rsp+N or rbp+N, ra c-8   "rule cfa=rsp+N rbp=R ra=c-8", R the rbp
                               column: s, c+N, or s for readelf's u (an
                               unspecified rbp keeps its value, the
                               x86-64 ABI's default; explicit undefined
                               would print u too, so the test refuses a
                               file that has one)
  the same with cfa=rbp+16 and rbp=c-16: "fp-chain ..."
  CFA exp, the .plt expression "plt"
  an FDE of a CIE with "S"     "signal"
  anything else                "stop" (another register as the CFA's
                               base, another expression, ra not c-8,
                               rbp in a register or an expression)
  no FDE                       "stop"

For an arm64 object (readelf -h: AArch64) the registers are sp, x29 and
the return address column ra (x30, the link register):

  CFA sp+N or x29+N            "rule cfa=sp+N x29=R ra=A", R the x29
                               column and A the ra column, each s (for
                               readelf's u: the ABI keeps x29 and x30,
                               libdw's default) or c+N; A is stop where
                               the FDE sets x30 undefined (an outermost
                               frame), which readelf also prints as u
  the same with cfa=x29+16, x29=c-16 and ra=c-8: "fp-chain ..."
  an FDE of a CIE with "S"     "stop" (the format's signal frame is x86-64's)
  anything else                "stop"

.eh_frame wins over .debug_frame where both cover an address, as in the
builder.  For each table of the dump (one per executable segment, each
after its "# covers" line), readelf's rows are cut to the table's
covered range, gaps filled with stop, and runs of one rule merged; the
two lists of (address, rule) must be equal.  Exit 0 when they are, else
1 with the first differences.
"""
import re
import subprocess
import sys

PLT = ("DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; "
       "DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus)")
ENTRY = re.compile(r"^([0-9a-f]{8,16}) [0-9a-f]+ [0-9a-f]+ (CIE|FDE)(.*)$")
FDE_PC = re.compile(r"cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)")
SECTION = re.compile(r"^Contents of the (\S+) section:")


def readelf(opt, path):
    return subprocess.run(["readelf", "-wN", opt, path], check=True, capture_output=True,
                          text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout


def machine(path):
    """"a64" for an AArch64 object, else "x86"."""
    out = subprocess.run(["readelf", "-h", path], check=True, capture_output=True, text=True,
                         env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout
    return "a64" if re.search(r"Machine:\s+AArch64", out) else "x86"


def raw_expressions(path):
    """(section, entry offset) -> the set of CFA expression kinds in it: plt, other;
    and "ra-undefined" where it sets arm64's x30 undefined."""
    exprs, sec, key = {}, None, None
    for line in readelf("-wf", path).splitlines():
        m = SECTION.match(line)
        if m:
            sec = m.group(1)
            continue
        m = ENTRY.match(line)
        if m:
            key = (sec, int(m.group(1), 16))
            exprs[key] = set()
            f = FDE_PC.search(m.group(3))
            loc = int(f.group(2), 16) if f else 0
            continue
        s = line.strip()
        if key and s.startswith("DW_CFA_undefined: r6 "):
            sys.exit("%s: DW_CFA_undefined for rbp, which readelf -wF prints as unspecified"
                     % path)
        adv = re.match(r"DW_CFA_advance_loc\d*: \d+ to ([0-9a-f]+)$", s)
        if key and adv:
            loc = int(adv.group(1), 16)
        if key and s.startswith("DW_CFA_undefined: r30 (x30)"):
            exprs[key].add(("ra-undefined", loc))
        if key and s.startswith("DW_CFA_def_cfa_expression"):
            exprs[key].add("plt" if s == PLT else "other")
    return exprs


def rule_text_a64(at, cols, cfa_exprs):
    """An arm64 readelf row at address AT as the builder prints its rule."""
    cfa, ra, fp = cols.get("CFA", "u"), cols.get("ra", "u"), cols.get("x29", "u")
    fp = "s" if fp == "u" else fp
    if ra == "u":	# undefined from where the FDE said so, else the ABI's same value
        undef = [a for e in cfa_exprs if isinstance(e, tuple) for a in e[1:]]
        ra = "stop" if any(at >= a for a in undef) else "s"
    if not re.fullmatch(r"c[+-]\d+|s", fp) or not re.fullmatch(r"c[+-]\d+|s", ra):
        return "stop"
    if not re.fullmatch(r"(sp|x29)[+-]\d+", cfa):
        return "stop"
    kind = "fp-chain" if cfa == "x29+16" and fp == "c-16" and ra == "c-8" else "rule"
    return "%s cfa=%s x29=%s ra=%s" % (kind, cfa, fp, ra)


def rule_text(cols, cfa_exprs):
    """A readelf row (column name -> value) as the builder prints its rule."""
    cfa, ra = cols.get("CFA", "u"), cols.get("ra", "u")
    rbp = cols.get("rbp", "u")
    rbp = "s" if rbp == "u" else rbp
    if rbp != "s" and not re.fullmatch(r"c[+-]\d+", rbp):
        return "stop"
    if ra != "c-8":
        return "stop"
    if cfa == "exp":
        return "plt" if cfa_exprs == {"plt"} and rbp == "s" else "stop"
    if not re.fullmatch(r"(rsp|rbp)[+-]\d+", cfa):
        return "stop"
    kind = "fp-chain" if cfa == "rbp+16" and rbp == "c-16" else "rule"
    return "%s cfa=%s rbp=%s ra=%s" % (kind, cfa, rbp, ra)


def readelf_ranges(path):
    """{section: [(lo, hi, rule text)]}, the readelf rows of each FDE."""
    exprs = raw_expressions(path)
    a64 = machine(path) == "a64"
    ranges, cies = {}, {}
    sec, names, cur, fde_rows = None, None, None, None

    def close():
        if cur is None or cur[0] != "FDE":
            return
        _, key, lo, hi, cie = cur
        rows = fde_rows or [(lo, dict(cies.get((sec, cie), {}).get("row", {})))]
        signal = "S" in cies.get((sec, cie), {}).get("aug", "")
        seen = exprs.get(key, set()) | exprs.get((sec, cie), set())
        for i, (at, cols) in enumerate(rows):
            end = rows[i + 1][0] if i + 1 < len(rows) else hi
            if a64:
                text = "stop" if signal else rule_text_a64(at, cols, seen)
            else:
                text = "signal" if signal else rule_text(cols, seen)
            ranges.setdefault(sec, []).append((at, end, text))

    for line in readelf("-wF", path).splitlines():
        m = SECTION.match(line)
        if m:
            close()
            sec, cur = m.group(1), None
            continue
        if line.endswith(" ZERO terminator"):	# not a row of the FDE before it
            close()
            cur = None
            continue
        m = ENTRY.match(line)
        if m:
            close()
            key = (sec, int(m.group(1), 16))
            if m.group(2) == "CIE":
                aug = re.match(r' "([^"]*)"', m.group(3))
                cies[key] = {"aug": aug.group(1) if aug else ""}
                cur = ("CIE", key)
            else:
                f = FDE_PC.search(m.group(3))
                cur = ("FDE", key, int(f.group(2), 16), int(f.group(3), 16), int(f.group(1), 16))
            fde_rows, names = [], None
            continue
        fields = []
        for word in line.split():	# "r10 (r10)": a register rule, one column
            if word.startswith("(") and fields:
                fields[-1] += " " + word
            else:
                fields.append(word)
        if not fields or cur is None:
            continue
        if fields[0] == "LOC":
            names = fields[1:]
        elif names and re.fullmatch(r"[0-9a-f]+", fields[0]):
            cols = dict(zip(names, fields[1:]))
            if cur[0] == "CIE":
                cies[cur[1]]["row"] = cols
            else:
                fde_rows.append((int(fields[0], 16), cols))
    close()
    return ranges


def merge(pieces, lo, hi):
    """Sorted, non-overlapping (start, end, text) over [lo, hi): gaps stop, runs merged."""
    out, at = [], lo
    for s, e, text in sorted(pieces):
        s, e = max(s, lo), min(e, hi)
        if s >= e:
            continue
        if s < at:
            sys.exit("readelf has FDEs that overlap at 0x%x" % s)
        if s > at:
            out.append((at, "stop"))
        out.append((s, text))
        at = e
    if at < hi:
        out.append((at, "stop"))
    return [r for i, r in enumerate(out) if i == 0 or out[i - 1][1] != r[1]]


def readelf_pieces(path):
    """(start, end, rule) of every readelf row, .eh_frame's first; the row count."""
    ranges = readelf_ranges(path)
    eh = ranges.get(".eh_frame", [])
    pieces = list(eh)
    covered = sorted((s, e) for s, e, _ in eh)
    for s, e, text in ranges.get(".debug_frame", []):
        for cs, ce in covered:	# the parts .eh_frame does not cover
            if cs < e and ce > s:
                if s < cs:
                    pieces.append((s, cs, text))
                s = max(s, ce)
        if s < e:
            pieces.append((s, e, text))
    return pieces, sum(len(v) for v in ranges.values())


def dump_tables(dump):
    """The dump's tables: [(lo, hi, [(address, rule)])], one per '# covers' line."""
    tables = []
    for line in open(dump):
        m = re.match(r"# covers 0x([0-9a-f]+)-0x([0-9a-f]+)$", line)
        if m:
            tables.append((int(m.group(1), 16), int(m.group(2), 16), []))
        elif not line.startswith("#"):
            if not tables:
                sys.exit("%s: a row before any '# covers' line" % dump)
            addr, text = line.rstrip("\n").split(" ", 1)
            tables[-1][2].append((int(addr, 16), text))
    if not tables:
        sys.exit("%s: no '# covers' line" % dump)
    return tables


def main():
    path, dump = sys.argv[1], sys.argv[2]
    tables, bad = dump_tables(dump), 0
    pieces, nrows = readelf_pieces(path)
    for lo, hi, got in tables:
        want = merge(pieces, lo, hi)
        if got == want:
            print("%s [0x%x, 0x%x): %d readelf rows, %d table rows, all equal"
                  % (path, lo, hi, nrows, len(got)))
            continue
        wd, gd = dict(want), dict(got)
        diff = [a for a in sorted(set(wd) | set(gd)) if wd.get(a) != gd.get(a)]
        print("%s [0x%x, 0x%x): %d readelf rows as %d table rows, the builder has %d; "
              "%d addresses differ:" % (path, lo, hi, nrows, len(want), len(got), len(diff)))
        for a in diff[:20]:
            print("  0x%x readelf %-40s builder %s" % (a, wd.get(a, "-"), gd.get(a, "-")))
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
