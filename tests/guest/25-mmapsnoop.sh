#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mmapsnoop and shmsnoop against strace and a workload of known calls
# (tests/workloads/mapper: 5 anonymous mappings of 20481 bytes, 3 of a
# file's first page, one mmap that fails with EBADF, three shmget, two of
# which fail (one asks for 2^63-byte huge pages), two shmat, two shmdt, two
# shmctl).
#   - Both probes are off at load, and each tool says how to turn it on.
#   - Run under strace, every mmap and shm* call strace saw the workload
#     make is in the mmap and shm rings with the same size, protection,
#     flags and result, and nothing else is; shmget's flags read as
#     strace decodes them, huge page size bits included.
#   - Run alone, the rings hold exactly the listed calls with their file
#     name, key, id, flags and errors, and the CLI, following the events
#     stream and reading the ring (--last -p), shows each one once.
#   - Calls made while the probes are off are not recorded.
. "$(dirname "$0")/lib.sh"
need_root
command -v strace > /dev/null || fail "strace is not installed (make deps installs it)"
F=/tmp/t25.file
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { kill "$mm" "$shm" 2>/dev/null; ms_unload 2>/dev/null; }
trap cleanup EXIT
mm='' shm=''
dd if=/dev/zero of=$F bs=4096 count=1 2>/dev/null || fail "create $F"

ms_load ring_size=4096
for p in mmap shm; do
	expect_eq "probe $p at load" "$(probe_state $p)" disabled
	expect_eq "probe $p's target" "$(awk -v n=$p '$1 == n { print $2 }' $D/probes)" sys_exit
done
optin_leases mmapsnoop mmapsnoop mmap --last
optin_leases shmsnoop shmsnoop shm --last
off=$("$W/mapper" $F | sed -n 's/^pid=//p')
[ -n "$off" ] || fail "mapper did not run"

echo enable mmapsnoop > $D/control || fail "enable mmapsnoop"
echo enable shmsnoop > $D/control || fail "enable shmsnoop"
for p in mmap shm; do
	expect_eq "probe $p after enable" "$(probe_state $p)" attached
done
"$CLI" -j mmapsnoop > /tmp/t25.mm.json 2> /tmp/reader.err &
mm=$!
wait_open $mm $D/events 10 "memscope mmapsnoop"
"$CLI" -j shmsnoop > /tmp/t25.shm.json 2> /tmp/reader.err &
shm=$!
wait_open $shm $D/events 10 "memscope shmsnoop"

strace -f -qq -o /tmp/t25.strace -e trace=mmap,shmget,shmat,shmdt,shmctl \
	"$W/mapper" $F > /tmp/t25.out || fail "mapper under strace: $(cat /tmp/t25.out)"
traced=$(sed -n 's/^pid=//p' /tmp/t25.out)
alone=$("$W/mapper" $F | sed -n 's/^pid=//p')
{ [ -n "$traced" ] && [ -n "$alone" ]; } || fail "mapper did not print its pid"
sleep 0.5
kill -INT $mm $shm
wait $mm; wait $shm
mm='' shm=''
cp $D/mmap /tmp/t25.mmap; cp $D/shm /tmp/t25.shm
diag "mapper pids: $off (probes off), $traced (strace), $alone (alone)"
grep " pid=$alone " /tmp/t25.mmap /tmp/t25.shm | sed 's/^/# /'

python3 - "$off" "$traced" "$alone" "${F##*/}" << 'EOF' || fail "see above"
import re, sys
off, traced, alone, fname = sys.argv[1:]
bad = 0
def check(what, got, want):
    global bad
    if got != want:
        print("# FAIL: %s: got %r, want %r" % (what, got, want))
        bad = 1
def ring(path, pid):
    out = []
    for line in open(path):
        f = dict(kv.split("=", 1) for kv in line.split())
        if f["pid"] == pid:
            out.append(f)
    return out
mm = {p: ring("/tmp/t25.mmap", p) for p in (off, traced, alone)}
shm = {p: ring("/tmp/t25.shm", p) for p in (off, traced, alone)}
check("mmap events while the probe was off", mm[off], [])
check("shm events while the probe was off", shm[off], [])

# strace's view of the traced run: (size, prot, flags, err), and shm calls
PROT = {"PROT_READ": "r", "PROT_WRITE": "w", "PROT_EXEC": "x"}
def prot(s):
    have = "".join(PROT[p] for p in s.split("|") if p in PROT)
    return "".join(c if c in have else "-" for c in "rwx")
def err(res):
    m = re.match(r"-1 (E[A-Z]+)", res)
    return 0 if not m else -{"EBADF": 9, "ENOENT": 2, "EINVAL": 22, "ENOMEM": 12,
                             "EACCES": 13, "EPERM": 1}[m.group(1)]
st_mm, st_shm, st_shmget = [], [], []
for line in open("/tmp/t25.strace"):
    m = re.match(r"(\d+) +(\w+)\((.*)\) += (.*)", line)
    if not m or m.group(1) != traced:
        continue
    call, args, res = m.group(2), [a.strip() for a in m.group(3).split(",")], m.group(4)
    if call == "mmap":
        st_mm.append((int(args[1]), prot(args[2]), "|".join(sorted(args[3].split("|"))),
                      err(res)))
    else:
        st_shm.append((call, err(res)))
        if call == "shmget":
            st_shmget.append(args[2])
ms_mm = [(int(f["size"]), f["prot"], "|".join(sorted(f["flags"].split("|"))), int(f["err"]))
         for f in mm[traced]]
check("mmap calls of the strace'd run, memscope against strace", ms_mm, st_mm)
check("shm calls of the strace'd run, memscope against strace",
      [(f["call"], int(f["err"])) for f in shm[traced]], st_shm)
if len(st_mm) < 9 or len(st_shm) != 9:
    print("# FAIL: strace saw %d mmap and %d shm calls, want >= 9 and 9" % (len(st_mm), len(st_shm)))
    bad = 1
# shmget's flags as strace prints them, but for the mode's digits
# (strace "000", memscope "0").
def mode(fl):
    named, _, m = fl.rpartition("|")
    return (named, int(m, 8))
check("shmget flags of the strace'd run, memscope against strace",
      [mode(f["flags"]) for f in shm[traced] if f["call"] == "shmget"],
      [mode(f) for f in st_shmget])

# The run alone: exactly the listed calls.
def count(evs, **want):
    return sum(all(e.get(k) == v for k, v in want.items()) for e in evs)
a = mm[alone]
check("anonymous mappings", count(a, size="20481", prot="rw-",
      flags="MAP_PRIVATE|MAP_ANONYMOUS", err="0", file="[anon]"), 5)
check("file mappings", count(a, size="4096", prot="r--", flags="MAP_SHARED", off="0",
      err="0", file=fname), 3)
check("the failed mapping", count(a, size="4096", flags="MAP_PRIVATE", err="-9", file="-"), 1)
check("the huge page size bits, as strace writes them", count(a, size="2097152",
      flags="MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|63<<MAP_HUGE_SHIFT", err="-22", file="[anon]"), 1)
check("comm", {e["comm"] for e in a}, {"mapper"})
s = [(e["call"], e.get("key"), e.get("size"), e.get("flags"), e.get("cmd"), e["err"])
     for e in shm[alone]]
check("shm calls in order", s, [
    ("shmget", "0x00000000", "8192", "IPC_CREAT|0600", None, "0"),
    ("shmget", "0x00004d53", "4096", "0", None, "-2"),
    ("shmat", None, None, "0", None, "0"),
    ("shmat", None, None, "SHM_RDONLY", None, "0"),
    ("shmdt", None, None, None, None, "0"),
    ("shmdt", None, None, None, None, "0"),
    ("shmctl", None, None, None, "IPC_STAT", "0"),
    ("shmctl", None, None, None, "IPC_RMID", "0"),
    ("shmget", "0x00000000", "2097152", "IPC_CREAT|SHM_HUGETLB|63<<SHM_HUGE_SHIFT|0600", None,
     "-22")])
ids = [e.get("id") for e in shm[alone]]
check("the shmget id in shmat and shmctl", len(set(ids[2:4] + ids[6:8])), 1)
check("the failed huge shmget's id", ids[8], "-1")
check("shmget's id", ids[0], ids[2])
check("the failed shmget's id", ids[1], "-1")

# The CLI, following the stream: the same events, once each.
import json
for tool, path, evs in (("mmapsnoop", "/tmp/t25.mm.json", mm), ("shmsnoop", "/tmp/t25.shm.json", shm)):
    recs = [json.loads(l) for l in open(path)]
    for p in (traced, alone):
        got = [r for r in recs if r.get("pid") == int(p)]
        check("%s stream: events of pid %s" % (tool, p), len(got), len(evs[p]))
        check("%s stream: errors of pid %s" % (tool, p), [r["err"] for r in got],
              [int(e["err"]) for e in evs[p]])
sys.exit(bad)
EOF

# --last -p: the ring, one process.
"$CLI" -j mmapsnoop --last -p "$alone" > /tmp/t25.last || fail "memscope mmapsnoop --last -p"
expect_eq "mmapsnoop --last -p: records" "$(wc -l < /tmp/t25.last)" \
	"$(grep -c " pid=$alone " /tmp/t25.mmap)"
expect_eq "mmapsnoop --last -p: file mappings" \
	"$(grep -c '"file":"t25.file"' /tmp/t25.last)" 3
"$CLI" shmsnoop --last -p "$alone" > /tmp/t25.last || fail "memscope shmsnoop --last -p"
sed 's/^/# cli: /' /tmp/t25.last
expect_eq "shmsnoop --last -p: header" "$(head -n 1 /tmp/t25.last | tr -s ' ')" \
	"PID COMM SYS RET ARGs"
expect_eq "shmsnoop --last -p: lines" "$(awk -v p="$alone" '$1 == p' /tmp/t25.last | wc -l)" 9
expect_eq "shmsnoop: failed shmget" \
	"$(awk -v p="$alone" '$1 == p && $3 == "shmget" && $4 == -2 { print $5, $6, $7 }' /tmp/t25.last)" \
	"key=0x00004d53 size=4096 flags=0"

echo disable mmapsnoop > $D/control || fail "disable mmapsnoop"
echo disable shmsnoop > $D/control || fail "disable shmsnoop"
for p in mmap shm; do
	expect_eq "probe $p after disable" "$(probe_state $p)" disabled
done
exit 0
