#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Opt-in tools switch their family on for as long as they run, as BCC's
# attach and detach (the module's control-file leases):
#  - mmapsnoop started with its family off turns it on, shows every mmap
#    of a workload started after it (mapper's 10, by pid), and turns it off
#    again at Ctrl-C;
#  - memleak with no INTERVAL traces until Ctrl-C, then prints: msleak,
#    loaded while it traced, has exactly 60 allocations of 15,360 bytes at
#    msleak_kmalloc_site; SIGTERM ends slabtop the same way;
#  - SIGKILL leaves nothing on: the kernel closes the tool's files;
#  - two tools share a lease: the family stays on until the second ends;
#  - a family already on, or enabled by the administrator while a tool
#    runs, stays on after the tool ends; one already on is not traced
#    until Ctrl-C but printed at once, as before.
. "$(dirname "$0")/lib.sh"
need_root
LEAK=$TOP/build/$REL/kmod/msleak.ko
[ -x "$CLI" ] || fail "no CLI at $CLI (make cli)"
F=/tmp/t42.file
trap 'kill $(cat /tmp/t42.pids 2>/dev/null) 2>/dev/null; rmmod msleak 2>/dev/null; ms_unload' EXIT
: > /tmp/t42.pids
echo leased > $F

# until_state PROBE STATE: wait up to 30 s for PROBE to be in STATE.
until_state() {
	_n=0
	while [ "$(probe_state "$1")" != "$2" ]; do
		_n=$((_n + 1))
		[ $_n -lt 300 ] || fail "probe $1 is $(probe_state "$1"), not $2, after 30 s"
		sleep 0.1
	done
}
# start OUT TOOL ARGS...: memscope TOOL in the background, its pid in $!.
start() {
	_out=$1
	shift
	# shellcheck disable=SC2086 # TOOL may be "faults --stacks"
	"$CLI" "$@" > "$_out" 2> "$_out.err" &
	echo $! >> /tmp/t42.pids
}
# stop PID SIGNAL WHAT: end a tool with SIGNAL; it must exit 0 (or be
# killed, for KILL) within 30 s.
stop() {
	kill -"$2" "$1" || fail "$3: already gone"
	_rc=0
	wait "$1" || _rc=$?
	if [ "$2" = KILL ]; then
		expect_eq "$3: exit status after SIGKILL" "$_rc" 137
	else
		expect_eq "$3: exit status after SIG$2" "$_rc" 0
	fi
}

ms_load
# --- mmapsnoop: on while it runs, every mmap of a workload started after it
start /tmp/t42.mm mmapsnoop
mm=$!
until_state mmap attached
pid=$("$W/mapper" $F | sed -n 's/^pid=//p')
[ -n "$pid" ] || fail "mapper did not run"
sleep 1		# the events reach the stream's reader
stop $mm INT "mmapsnoop"
expect_eq "mmap after mmapsnoop ended" "$(probe_state mmap)" disabled
expect_eq "mmapsnoop's lines for mapper (5 anonymous, 3 of the file, 2 failed)" \
	"$(awk -v p="$pid" '$1 == p' /tmp/t42.mm | wc -l)" 10
grep -q "^Tracing: memscope turned mmapsnoop on" /tmp/t42.mm.err &&
	fail "mmapsnoop follows its events: no tracing note for it: $(cat /tmp/t42.mm.err)"

# --- memleak: no INTERVAL, traces until Ctrl-C, then prints
start /tmp/t42.leak memleak --top 1000
leak=$!
until_state kmalloc attached
insmod "$LEAK" kmallocs=100 kfrees=40 cache_allocs=30 cache_frees=10 pages0=0 pages2=0 \
	pfrees0=0 pfrees2=0 pcpus=0 pcpufrees=0 irqobjs=0 || fail "insmod $LEAK"
kill -0 $leak || fail "memleak did not wait for Ctrl-C: $(cat /tmp/t42.leak.err)"
stop $leak INT "memleak"
grep -q "^Tracing: memscope turned memleak on, and turns it off when it ends. Hit Ctrl-C to end.$" \
	/tmp/t42.leak.err || fail "memleak does not say it traces: $(cat /tmp/t42.leak.err)"
grep -q "^	15360 bytes in 60 allocations from msleak_kmalloc_site+.*\[msleak\]" /tmp/t42.leak ||
	fail "memleak traced: $(grep -c . /tmp/t42.leak) lines, msleak: $(grep msleak /tmp/t42.leak)"
grep -q "^	4000 bytes in 20 allocations from msleak_cache_site+" /tmp/t42.leak ||
	fail "memleak traced, msleak_cache_site: $(grep msleak /tmp/t42.leak)"
for p in kmalloc kmem_cache_alloc kfree kmem_cache_free page_alloc page_free; do
	expect_eq "$p after memleak ended" "$(probe_state $p)" disabled
done
rmmod msleak || fail "rmmod msleak"

# --- SIGTERM ends a traced slabtop as Ctrl-C does; SIGKILL leaves nothing on
start /tmp/t42.slab slabtop
slab=$!
until_state slab_alloc attached
stop $slab TERM "slabtop"
expect_eq "slab_alloc after slabtop's SIGTERM" "$(probe_state slab_alloc)" disabled
grep -q "^CACHE" /tmp/t42.slab || fail "slabtop printed no report at SIGTERM: $(cat /tmp/t42.slab)"
start /tmp/t42.slab slabtop
slab=$!
until_state slab_alloc attached
stop $slab KILL "slabtop"
expect_eq "slab_alloc after slabtop's SIGKILL" "$(probe_state slab_alloc)" disabled

# --- two tools, one family: on until the second ends
start /tmp/t42.a shmsnoop
a=$!
until_state shm attached
start /tmp/t42.b shmsnoop
b=$!
sleep 1
kill -0 $b || fail "the second shmsnoop ended: $(cat /tmp/t42.b.err)"
stop $a INT "first shmsnoop"
expect_eq "shm while the second shmsnoop runs" "$(probe_state shm)" attached
stop $b INT "second shmsnoop"
expect_eq "shm after both ended" "$(probe_state shm)" disabled

# --- the administrator's word stands: enabled while a tool runs, or before
start /tmp/t42.mm mmapsnoop
mm=$!
until_state mmap attached
echo enable mmapsnoop > $D/control || fail "enable mmapsnoop"
stop $mm INT "mmapsnoop"
expect_eq "mmap enabled by hand while mmapsnoop ran, after it" "$(probe_state mmap)" attached
echo disable mmapsnoop > $D/control || fail "disable mmapsnoop"
echo enable slabtop > $D/control || fail "enable slabtop"
"$CLI" slabtop > /tmp/t42.slab 2> /tmp/t42.slab.err &
slab=$!
n=0
while kill -0 $slab 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 300 ] || fail "slabtop with slabtop already on did not print at once"
	sleep 0.1
done
wait $slab || fail "slabtop with slabtop on: $(cat /tmp/t42.slab.err)"
grep -q "^Tracing" /tmp/t42.slab.err && fail "slabtop traced a family it did not turn on"
expect_eq "slab_alloc, on before slabtop, after it" "$(probe_state slab_alloc)" attached
exit 0
