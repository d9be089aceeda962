#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pmap -i, driven as a person would: in a tmux pane, keys typed with
# send-keys and the screen read with capture-pane.  The workload
# (tests/workloads/pagemark) has 16 pages in a known state: 0, 2, 3 and 7
# written, page 7 holding two known strings, 12 and 13 paged out to zram.
#  - the map shows those pages a character each, + and - change the pages
#    per cell, a cell shows its strongest page (A over S over .);
#  - pages the workload writes after the start show at the next refresh;
#  - Enter on page 7 shows its address, the PFN and map count that
#    /proc/PID/pagemap and /proc/kpagecount give, the flags that
#    /proc/kpageflags gives, by name, and its bytes, scrolled to the end;
#    on page 12 the swap type and offset that pagemap gives;
#  - q quits, and the pane is as before: the same stty settings, no
#    alternate screen; the same after the process exits (the screen says
#    so) and after SIGTERM;
#  - as nobody, on its own process: the screen says the PFN and flags need
#    root, and the bytes are there, or with Yama's ptrace_scope 1, that
#    setting; no process, and no terminal: errors.
# Needs no module.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
[ -x "$CLI" ] || fail "no CLI at $CLI (make cli)"
command -v tmux > /dev/null || fail "tmux not installed (make deps)"
[ -e /proc/kpageflags ] || lacks "/proc/kpageflags (CONFIG_PROC_PAGE_MONITOR)"
kver_ge 5 4 || lacks "MADV_PAGEOUT (Linux 5.4+)"
SOCK=/tmp/t43.sock
PAGE=$(getconf PAGESIZE)
[ "$PAGE" = 4096 ] || fail "the test knows 4 KiB pages, this kernel has $PAGE"
pid='' npid='' scope=none

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	[ "$scope" = none ] || echo "$scope" > /proc/sys/kernel/yama/ptrace_scope
	for p in $pid $npid; do kill "$p" 2>/dev/null; done
	zram_swap_off
}
trap cleanup EXIT
zram_swap 16M || lacks "zram"

# start_mark OUT [setpriv args]: pagemark, until it says "ready"; sets mpid.
start_mark() {
	_o=$1; shift
	"$@" "$W/pagemark" pageout > "$_o" 2>&1 &
	mpid=$!
	_t=0
	until grep -q '^ready' "$_o"; do
		kill -0 $mpid 2>/dev/null || fail "pagemark exited: $(cat "$_o")"
		_t=$((_t + 1)); [ $_t -le 100 ] || fail "pagemark not ready in 10 s"
		sleep 0.1
	done
	grep -q '^pageout unsupported' "$_o" && fail "MADV_PAGEOUT failed on $REL"
	return 0
}

# pane NAME CMD: a tmux session NAME of 100x40 running CMD between two
# `stty -g` (the terminal's settings before and after), then "after rc=N".
pane() {
	TERM=xterm tmux -S "$SOCK" -f /dev/null new-session -d -s "$1" -x 100 -y 40 \
		"stty -g > /tmp/t43.$1.before; $2; echo \"after rc=\$?\"; stty -g > /tmp/t43.$1.after; sleep 600" ||
		fail "tmux new-session $1"
}
screen() { tmux -S "$SOCK" capture-pane -p -t "$1"; }
keys() { _s=$1; shift; tmux -S "$SOCK" send-keys -t "$_s" "$@"; }
# wait_for NAME TEXT: TEXT on NAME's screen within 15 s, else fail.
wait_for() {
	_t=0
	until screen "$1" | grep -qF -- "$2"; do
		_t=$((_t + 1))
		[ $_t -le 75 ] || { screen "$1" | sed 's/^/# | /'; fail "$1: no \"$2\" on the screen in 15 s"; }
		sleep 0.2
	done
}
# restored NAME: the command ended with status 0 and left the terminal
# as it found it: the same settings, the alternate screen off, no map.
restored() {
	wait_for "$1" "after rc=0"
	_t=0
	until [ -s "/tmp/t43.$1.after" ]; do
		_t=$((_t + 1)); [ $_t -le 50 ] || fail "$1: no stty after it ended"; sleep 0.1
	done
	cmp -s "/tmp/t43.$1.before" "/tmp/t43.$1.after" ||
		fail "$1: terminal settings changed: $(cat "/tmp/t43.$1.before") -> $(cat "/tmp/t43.$1.after")"
	expect_eq "$1: alternate screen after exit" "$(tmux -S "$SOCK" display -p -t "$1" '#{alternate_on}')" 0
	screen "$1" | grep -q 'legend:' && fail "$1: the map is still on the screen"
	diag "$1: ended with status 0, terminal settings and screen restored"
}
# row ADDRESS NAME: the cells of NAME's map row at ADDRESS.
row() { screen "$2" | awk -v a="$1" '$1 "" == a "" { print $2 }'; }
# wait_row NAME ADDRESS CELLS: that row shows CELLS within 15 s.
wait_row() {
	_t=0
	until [ "$(row "$2" "$1")" = "$3" ]; do
		_t=$((_t + 1))
		[ $_t -le 75 ] || { screen "$1" | sed 's/^/# | /'; fail "$1: row $2 is \"$(row "$2" "$1")\", want \"$3\""; }
		sleep 0.2
	done
	diag "$1: row $2: $3"
}
hex() { printf '%x' "$1"; }

start_mark /tmp/t43.mark
pid=$mpid
base=$(awk '$1 == "region" { print $2 }' /tmp/t43.mark)
b=$(printf '%d' "0x$base")
p7=$(hex $((b + 7 * PAGE))) p12=$(hex $((b + 12 * PAGE)))

# --- the map of the region, zoom, refresh, page detail, q
pane main "$CLI pmap -i -p $pid --map $base -d 1"
wait_for main "mapping $base-$(hex $((b + 16 * PAGE))), 1 page per cell"
wait_row main "$base" "A.AA...A....SS.."
wait_for main "legend: . not present  S swapped  A anonymous  F file  D file, dirty"
wait_for main "VmRSS"
wait_for main "cursor $base 'A'"
keys main +
wait_for main "2 pages per cell"
wait_row main "$base" "AA.A..S."
keys main + +
wait_for main "8 pages per cell"
wait_row main "$base" "AS"
keys main - - -
wait_for main "1 page per cell"
wait_for main "cursor $base 'A'"

# The workload writes pages 10 and 11: the next refresh shows them.
kill -USR1 $pid
wait_row main "$base" "A.AA...A..AASS.."
grep -q '^touched' /tmp/t43.mark || fail "pagemark did not say touched"
keys main + + +
wait_for main "8 pages per cell"
wait_row main "$base" "AA"
keys main - - -
wait_for main "1 page per cell"

# Page 7: its detail against the kernel's files, read here independently.
keys main Right Right Right Right Right Right Right
wait_for main "cursor $p7 'A'"
keys main Enter
wait_for main "page $p7 of $base-"
wait_for main "MEMSCOPE-PAGE-07"
screen main > /tmp/t43.detail
sed -n '1,5s/^/# | /p' /tmp/t43.detail
python3 - "$pid" "$b" /tmp/t43.detail > /tmp/t43.check << 'EOF' || fail "page 7: $(cat /tmp/t43.check)"
import re, struct, sys
pid, base, scr = int(sys.argv[1]), int(sys.argv[2]), open(sys.argv[3]).read()
# include/uapi/linux/kernel-page-flags.h, and fs/proc/page.c's kernel-only bits
names = {0: "locked", 1: "error", 2: "referenced", 3: "uptodate", 4: "dirty", 5: "lru",
         6: "active", 7: "slab", 8: "writeback", 9: "reclaim", 10: "buddy", 11: "mmap",
         12: "anon", 13: "swapcache", 14: "swapbacked", 15: "compound_head",
         16: "compound_tail", 17: "huge", 18: "unevictable", 19: "hwpoison", 20: "nopage",
         21: "ksm", 22: "thp", 23: "offline", 24: "zero_page", 25: "idle", 26: "pgtable",
         32: "reserved", 33: "mlocked", 34: "mappedtodisk", 35: "private", 36: "private_2",
         37: "owner_private", 38: "arch", 39: "uncached", 40: "softdirty", 41: "arch_2",
         42: "arch_3"}
def u64(path, index):
    with open(path, "rb") as f:
        f.seek(index * 8)
        return struct.unpack("<Q", f.read(8))[0]
e = u64("/proc/%d/pagemap" % pid, base // 4096 + 7)
pfn = e & ((1 << 55) - 1)
assert e >> 63 and pfn, "pagemap says page 7 is not present: %x" % e
flags, count = u64("/proc/kpageflags", pfn), u64("/proc/kpagecount", pfn)
m = re.search(r"^pagemap ([0-9a-f]{16}): present, PFN 0x([0-9a-f]+) \((\d+)\), anonymous", scr, re.M)
assert m, "no pagemap line"
assert int(m.group(2), 16) == pfn == int(m.group(3)), "PFN %s, pagemap %x" % (m.group(2), pfn)
# present, swapped, file, exclusive: what pagemap says of the page now
assert int(m.group(1), 16) >> 56 == e >> 56, "entry %s, pagemap %016x" % (m.group(1), e)
m = re.search(r"^kpageflags ([0-9a-f]{16}):(.*)$", scr, re.M)
assert m, "no kpageflags line"
shown = int(m.group(1), 16)
want = " ".join(names.get(b, "bit%d" % b) for b in range(64) if shown >> b & 1)
assert m.group(2).split() == want.split(), "names %r for %x, want %r" % (m.group(2), shown, want)
# What cannot change while the page stays: anon, mmap, swapbacked, uptodate.
stable = 1 << 12 | 1 << 11 | 1 << 14 | 1 << 3
assert shown & stable == stable and flags & stable == stable, "flags %x, kpageflags %x" % (shown, flags)
assert re.search(r"^map count %d$" % count, scr, re.M), "map count, kpagecount %d" % count
# Nothing merges this page (ksmd is off): a ksm flag is 6.10+'s flag on
# every anonymous page, and the screen must say so.
assert not shown >> 21 & 1 or "this kernel sets ksm on every anonymous page" in scr, "ksm unexplained"
assert re.search(r"^0100   4d 45 4d 53 43 4f 50 45  2d 50 41 47 45 2d 30 37  MEMSCOPE-PAGE-07$", scr, re.M), "no bytes at 0100"
print("PFN 0x%x and map count %d as pagemap and kpagecount; flags %x (%s), kpageflags now %x" %
      (pfn, count, shown, m.group(2).strip(), flags))
EOF
diag "page 7: $(cat /tmp/t43.check)"
keys main NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage
wait_for main "0ff0   45 4e 44 2d 4f 46 2d 50  41 47 45 2d 30 37 21 21  END-OF-PAGE-07!!"
keys main Escape
wait_for main "cursor $p7 'A'"

# Page 12, paged out: the swap entry that pagemap holds.
keys main Right Right Right Right Right
wait_for main "cursor $p12 'S'"
keys main Enter
wait_for main "page $p12 of $base-"
swap=$(python3 -c '
import struct, sys
with open("/proc/%s/pagemap" % sys.argv[1], "rb") as f:
    f.seek((int(sys.argv[2], 16) // 4096) * 8)
    e = struct.unpack("<Q", f.read(8))[0]
print("swapped, swap type %d, offset 0x%x" % (e & 0x1f, (e & ((1 << 55) - 1)) >> 5) if e >> 62 & 1 else "not swapped")' \
	"$pid" "$p12")
diag "page 12, pagemap: $swap"
wait_for main ": $swap"
wait_for main "not resident: its bytes are not read"
keys main Enter
wait_for main "cursor $p12 'S'"
keys main q
restored main

# --- the whole process; the process exits; SIGTERM
pane whole "sh -c 'echo \$\$ > /tmp/t43.whole.pid; exec $CLI pmap -i -p $pid -d 0.5'"
wait_for whole "PID $pid (pagemark), whole process, 1 page per cell"
wait_row whole "$base" "A.AA...A..AASS.."
kill $pid; wait $pid 2>/dev/null
wait_for whole "process $pid exited: the last view stays, q quits"
wait_row whole "$base" "A.AA...A..AASS.."
pid=
# memscope's pid: its sh -c's, which exec'd it.
kill -TERM "$(cat /tmp/t43.whole.pid)"
restored whole

# --- as nobody, its own process: what needs root, said on the screen
command -v setpriv > /dev/null || fail "setpriv not installed (util-linux)"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2086 # setpriv and its options
start_mark /tmp/t43.nobody $NOBODY
npid=$mpid
nbase=$(awk '$1 == "region" { print $2 }' /tmp/t43.nobody)
pane nobody "$NOBODY $CLI pmap -i -p $npid --map $nbase 2> /tmp/t43.nobody.err"
wait_row nobody "$nbase" "A.AA...A....SS.."
keys nobody Right Right Right Right Right Right Right Enter
wait_for nobody ": present, PFN hidden: it needs root (CAP_SYS_ADMIN)"
wait_for nobody "kpageflags, map count: need root (CAP_SYS_ADMIN), run memscope as root to see them"
# /proc/PID/mem takes ptrace's attach access, which Yama's ptrace_scope 1
# (its kernel default: a bare RHEL 9 kernel has it, Debian patches it to
# 0) grants only to ancestors, owner or not.  Then the screen must name
# that setting, not tell the owner to be the owner; and with 0, the bytes.
ys=/proc/sys/kernel/yama/ptrace_scope
scope=$(cat $ys 2>/dev/null || echo none)
if [ "$scope" != none ] && [ "$scope" != 0 ]; then
	wait_for nobody "Yama's kernel.yama.ptrace_scope is $scope"
else
	wait_for nobody "MEMSCOPE-PAGE-07"
fi
keys nobody q
restored nobody
if [ "$scope" != none ]; then
	other=$([ "$scope" = 0 ] && echo 1 || echo 0)
	echo "$other" > $ys || fail "cannot set $ys to $other"
	pane yama "$NOBODY $CLI pmap -i -p $npid --map $nbase 2> /tmp/t43.yama.err"
	wait_row yama "$nbase" "A.AA...A....SS.."
	keys yama Right Right Right Right Right Right Right Enter
	if [ "$other" = 1 ]; then
		wait_for yama "Yama's kernel.yama.ptrace_scope is 1"
	else
		wait_for yama "MEMSCOPE-PAGE-07"
	fi
	keys yama q
	restored yama
	echo "$scope" > $ys
	diag "nobody, ptrace_scope $scope and $other: the bytes with 0, Yama named with 1"
fi

# --- no such process, on a terminal; and no terminal
pane gone "$CLI pmap -i -p 2147483647"
wait_for gone "Error: no process 2147483647"
wait_for gone "after rc=1"
"$CLI" pmap -i -p $npid < /dev/null > /tmp/t43.out 2>&1 && fail "pmap -i without a terminal succeeded"
grep -q "pmap -i needs a terminal" /tmp/t43.out || fail "no terminal: $(cat /tmp/t43.out)"
diag "$(cat /tmp/t43.out)"
exit 0
