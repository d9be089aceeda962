#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faults --stacks against perf, on the same runs: perf record -e
# page-faults -c 1 --call-graph dwarf (every fault, its user stack copied
# and unwound by perf from .eh_frame) beside faultstacks, with the unwind
# tables of each program's files loaded first.  Programs: Debian's
# python3, gzip and sort, and mallocer (glibc's malloc and memset, no frame
# pointers).  A frame is compared as its file and its offset in the file
# (perf script prints that for a file's frames), or "anon", so that
# symbol names (aliases, inlines, debuginfo) cannot make two tools agree
# or differ.  For each program:
#   - the faults each counted for its pid agree but for retries: the
#     module counts each handle_mm_fault(), as /proc/vmstat's pgfault,
#     perf each fault exception, and a fault that had to drop mmap_lock
#     (to wait for a page, or to start readahead) is retried, with a
#     second call: memscope's count less perf's is at most the
#     faults_retry of every process while perf ran (the guest's root, on
#     9p, has some);
#   - perf gives some faults taken in kernel mode no user stack (2 to 5
#     a program), where the module walks the stack the system call
#     saved: those are left out, and must be at most the faults_kernel
#     counted while perf ran; a sample perf places in no file (these
#     programs run no code outside files: 1 of python3's 2,150) is left
#     out too, and must be under 1%;
#   - at least 90% of the faults have the same stack in both, compared
#     over its 8 innermost frames (perf copies 8 KiB of stack per sample,
#     so a deep stack of python3's ends earlier in perf than in memscope,
#     whose ustack_depth is 32), or whole where it is shorter.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are followed on x86-64 only"
command -v perf > /dev/null || fail "no perf: apt-get install linux-perf (make deps)"
PY=/usr/bin/python3.11
[ -x $PY ] || fail "no $PY"
T=/tmp/t44
K=/proc/sys/kernel
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -n "${pct:-}" ] && echo "$pct" > "$K/perf_cpu_time_max_percent"
	[ -n "${rate:-}" ] && echo "$rate" > "$K/perf_event_max_sample_rate" 2>/dev/null
	ms_unload 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p $T
# Every fault a sample: the kernel throttles a sampling event past
# perf_event_max_sample_rate, which it lowers itself when samples take
# long (8 KiB of stack each, under TCG), unless perf_cpu_time_max_percent
# is 0.  perf record's buffer holds a burst: 64 MiB.
# The rate first: the kernel refuses it while the limit is off.
pct=$(cat $K/perf_cpu_time_max_percent) rate=$(cat $K/perf_event_max_sample_rate)
echo 100000 > $K/perf_event_max_sample_rate || fail "perf_event_max_sample_rate"
echo 0 > $K/perf_cpu_time_max_percent || fail "perf_cpu_time_max_percent"

ms_load table_size=8192
# The files of each program, its libraries and its loader: tables first.
for b in $PY /usr/bin/gzip /usr/bin/sort "$W/mallocer"; do
	# shellcheck disable=SC2046 # ldd's paths have no spaces
	"$CLI" __unwind-load "$b" $(ldd "$b" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') \
		> /dev/null 2> $T/err || fail "__unwind-load for $b: $(cat $T/err)"
done
diag "unwind_tables: $(grep -vc '^#' $D/unwind_tables) files"
seq 30000 -1 1 | sed 's/$/ memscope/' > $T/lines
head -c 1000000 $PY > $T/gz.in
cat > $T/alloc.py << 'EOF'
a = [bytearray(4096 * (i % 7 + 1)) for i in range(200)]
d = {str(i): [i] * 8 for i in range(8000)}
EOF

# compare NAME COMM CMD...: CMD under perf with faultstacks on, then the
# two tools' stacks of its pid.
compare() {
	name=$1 comm=$2 p=$T/$1
	shift 2
	echo enable faultstacks > $D/control || fail "enable faultstacks"
	# faults_by_stack leaves out an attempt under the VMA lock alone that
	# gave way to the mmap lock (6.4 on, RHEL 9.6), as faults does: the
	# retries are faults_retry's alone.
	r0=$(ms_stat faults_retry) k0=$(ms_stat faults_kernel)
	perf record -q -m 16384 -e page-faults -c 1 --call-graph dwarf,8192 -o "$p.data" -- "$@" \
		> /dev/null 2> "$p.perf" || fail "perf record $*: $(tail -n 3 "$p.perf")"
	echo disable faultstacks > $D/control || fail "disable faultstacks"
	retries=$(($(ms_stat faults_retry) - r0)) kfaults=$(($(ms_stat faults_kernel) - k0))
	perf script -i "$p.data" -F comm,pid,ip,dso --no-inline > "$p.script" 2>> "$p.perf" ||
		fail "perf script: $(tail -n 3 "$p.perf")"
	# None lost, none throttled: perf's count is every fault.
	perf script -i "$p.data" --show-lost-events --show-throttle-events -F comm 2>/dev/null |
		grep -E 'PERF_RECORD_(LOST|THROTTLE)' > "$p.lost"
	[ -s "$p.lost" ] && fail "$name: perf lost or throttled samples: $(head -n 3 "$p.lost")"
	rm -f "$p.data"
	python3 - "$D" "$comm" "$p.script" 8 > "$p.cmp" << 'EOF' || fail "$name: $(cat "$p.cmp")"
import collections, os, sys

d, comm, script, depth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def key(frames):
    return tuple(frames[:depth])

# perf: a sample is "comm pid" and its frames, innermost first, kernel
# ones first; only the user frames are the module's.
perf = collections.Counter()
pid, frames, raw, kmode, nouser, unplaced, example = None, [], [], False, 0, 0, None
def flush():
    global example, nouser, unplaced
    if pid is None:
        return
    if kmode and not frames:
        # A fault taken in kernel mode (a system call's copy to a user
        # buffer) that perf gave no user stack.
        nouser += 1
    elif frames and frames[0] == "anon":
        # These programs run no code outside files (no JIT; the vDSO does
        # not fault): a sample perf puts there is one it could not place.
        unplaced += 1
        example = example or raw
    else:
        perf[key(frames)] += 1
for line in open(script):
    if not line.strip():
        continue
    if not line[0].isspace():
        flush()
        f = line.split()
        pid = int(f[1]) if f[0] == comm else None
        frames, raw, kmode = [], [line.strip()], False
        continue
    raw.append(line.strip())
    addr, dso = line.split(None, 1)
    dso = dso.strip()[1:-1]
    # A kernel frame: [kernel.kallsyms], or a vmlinux perf found (6.12),
    # at a kernel address either way.
    if dso.startswith("[kernel.") or int(addr, 16) >= 1 << 47:
        kmode = True
        continue
    # perf script prints a caller's frame at its return address less one,
    # the call's last byte; the module keeps the return address.
    pc = int(addr, 16) + (1 if frames else 0)
    if dso.startswith("/"):
        frames.append("%s+%#x" % (os.path.basename(dso), pc))
    else:
        frames.append("anon")
flush()
# The run's pid: the one perf's samples of COMM name.
pids = set()
for line in open(script):
    if line and not line[0].isspace() and line.split()[0] == comm:
        pids.add(int(line.split()[1]))
if len(pids) != 1:
    sys.exit("perf's samples of %s are of pids %s, want one" % (comm, sorted(pids)))
pid = pids.pop()

files = {}
for line in open(os.path.join(d, "files")):
    if line.startswith("#"):
        continue
    f = line.split(None, 7)
    files[f[0]] = os.path.basename(f[7].strip()) if len(f) == 8 and f[7].strip() != "-" else "slot" + f[0]

ms = collections.Counter()
cols = None
for line in open(os.path.join(d, "faults_by_stack")):
    if line.startswith("#"):
        cols = line[1:].split()
        continue
    f = line.split()
    r = dict(zip(cols, f))
    if int(r["pid"]) != pid or r["comm"] != comm:
        continue
    frames = []
    for fr in r["stack"].split(",") if r["stack"] != "-" else []:
        if fr.startswith("f"):
            slot, off = fr[1:].split("+")
            frames.append("%s+%#x" % (files.get(slot, "slot" + slot), int(off, 16)))
        else:
            frames.append("anon")
    ms[key(frames)] += int(r["faults"])

nm, np = sum(ms.values()), sum(perf.values())
same = sum(min(ms[k], perf[k]) for k in ms)
print(pid, nm, np + nouser + unplaced, nouser, unplaced, same)
if example:
    print("# a sample perf could not place: %s" % " | ".join(example[:12]))
for what, a, b in (("memscope only", ms, perf), ("perf only", perf, ms)):
    for k, n in sorted(((k, a[k] - b[k]) for k in a if a[k] > b[k]), key=lambda x: -x[1])[:3]:
        print("# %s: %d %s" % (what, n, ";".join(k)))
EOF
	sed -n 's/^# /# '"$name"': /p' "$p.cmp"
	read -r pid nm np nouser unplaced same < "$p.cmp"
	diag "$name (pid $pid): memscope $nm faults, perf $np ($nouser in kernel mode with no user stack, $unplaced it could not place); $retries retried and $kfaults taken in kernel mode while perf ran; $same in the same stacks"
	expect_ge "$name: faults perf counted" "$np" 100
	expect_ge "$name: memscope's faults vs perf's" "$nm" "$np"
	expect_ge "$name: the fault retries while perf ran (every process's) vs memscope's faults less perf's" \
		"$retries" $((nm - np))
	expect_ge "$name: faults in kernel mode while perf ran (every process's) vs perf's without a user stack" \
		"$kfaults" "$nouser"
	[ $((unplaced * 100)) -le "$np" ] || fail "$name: perf could not place $unplaced of its $np samples"
	expect_ge "$name: faults in the same stack (8 innermost frames), per cent of those perf has a stack for" \
		$((same * 100 / (np - nouser - unplaced))) 90
}
compare python3 python3.11 $PY $T/alloc.py
compare gzip gzip gzip -c $T/gz.in
compare sort sort sort -n $T/lines
compare mallocer mallocer "$W/mallocer" 20
grep -E '^(unwind_|ustack_)' $D/stats | tr '\n' ' ' | sed 's/^/# /'
echo
exit 0
