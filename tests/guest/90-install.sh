# vm-args: --overlay -m 1G
# SPDX-License-Identifier: GPL-2.0
# Install memscope as a user would, on a writable overlay of the host root:
# the .debs from "make deb" (dpkg -i: dkms, the headers and the rest are on
# the host root already), then "make dkms-install".  Each time "modprobe
# memscope" must find the module by name, "memscope status" must show probes
# attached, "modprobe -r" must unload it, and removing it must leave no file
# behind: the overlay's upper layer holds everything the guest created.
#
# One DKMS build under TCG took 14 minutes on a loaded 2-core host, so by
# default the package's postinst loads a binaries-only DKMS tarball built on
# the host (scripts/dkms-prebuilt, the same source and dkms) instead of
# compiling, and "make dkms-install", which always compiles, is skipped.
# TEST_DKMS_BUILD=1 compiles in the guest and runs both.
. "$(dirname "$0")/lib.sh"
need_root

VER=$(cat "$TOP/VERSION")
DEBS="$TOP/build/deb/memscope-dkms_${VER}_all.deb $TOP/build/deb/memscope_${VER}_amd64.deb"
U=/run/vm-overlay/upper
L=/run/vm-overlay/lower
LOG=/tmp/install.log
export DEBIAN_FRONTEND=noninteractive

[ -d $U ] && touch /.memscope-rw 2>/dev/null && rm /.memscope-rw ||
	skip "needs a writable root (vm-run --overlay)"
for d in $DEBS; do [ -f "$d" ] || fail "$d missing: run 'make deb' on the host"; done
command -v dkms > /dev/null || skip "dkms not installed on the host"
[ -e /lib/modules/$REL/build/include ] || skip "no headers for $REL"
TARBALL=$TOP/build/deb/prebuilt/memscope-$VER-$REL.dkms.tar.gz
[ -n "${TEST_DKMS_BUILD:-}" ] || [ -f "$TARBALL" ] ||
	fail "$TARBALL missing: run scripts/dkms-prebuilt build/deb/prebuilt $REL on the host"

# "dkms build" of a kernel is the slow part under TCG.  dkms's postinst
# builds for the running kernel and the newest installed one: hide the
# other kernels' headers so that each kernel's run builds once.
hidden=
for b in /lib/modules/*/build; do
	[ "$b" = /lib/modules/$REL/build ] && continue
	[ -e "$b" ] || [ -h "$b" ] || continue
	mv "$b" "$b.memscope-hidden" && hidden="$hidden $b"
done
cleanup() {
	for b in $hidden; do mv "$b.memscope-hidden" "$b"; done
	hidden=
	ms_unload 2>/dev/null
}
trap cleanup EXIT

# What the guest created or deleted on the root filesystem (the overlay's
# upper layer, less what only changed an existing file), and what is in
# /var/lib/dkms (a tmpfs of its own).  DKMS's own signing key (mok.*) is
# DKMS state, not memscope's.
created() {
	(cd $U && find . -mindepth 1 \( -path ./var/cache -o -path ./var/log -o \
		-path ./var/lib/dpkg -o -path ./var/lib/apt \) -prune -o -print) |
	sed 's,^\.,,' | while IFS= read -r p; do
		if [ -c "$U$p" ]; then
			echo "deleted $p"
		elif [ ! -e "$L$p" ] && [ ! -h "$L$p" ]; then
			echo "created $p"
		fi
	done
	find /var/lib/dkms -mindepth 1 ! -name 'mok.*' | sed 's/^/dkms /'
}
# A step that prints its output only when it fails.
run() {
	"$@" > $LOG 2>&1 && return 0
	sed 's/^/#   /' $LOG | tail -n 30
	fail "$* failed"
}
# loaded_and_attached WHERE: modprobe by name, the CLI sees probes attached,
# modprobe -r unloads.
loaded_and_attached() {
	path=$(modinfo -n memscope 2>/dev/null) || fail "modinfo: no memscope module for $REL"
	case $path in
	/lib/modules/$REL/updates/*) diag "$1: modprobe finds $path" ;;
	*) fail "$1: memscope module at $path, want /lib/modules/$REL/updates/" ;;
	esac
	expect_eq "$1: module version" "$(modinfo -F version memscope)" "$VER"
	run modprobe memscope
	lsmod | grep -q '^memscope ' || fail "$1: not loaded after modprobe"
	$2 status > /tmp/status.out 2>&1 || { cat /tmp/status.out; fail "$1: $2 status failed"; }
	grep -q "^memscope $VER (cli $VER), kernel $REL" /tmp/status.out ||
		fail "$1: status header: $(head -n 1 /tmp/status.out)"
	attached=$(awk '$3 == "attached"' /tmp/status.out | wc -l)
	awk '$1 == "faults" && $3 == "attached" { f = 1 } END { exit !f }' /tmp/status.out ||
		fail "$1: faults probe not attached: $(cat /tmp/status.out)"
	diag "$1: memscope status shows $attached probes attached"
	run modprobe -r memscope
	lsmod | grep -q '^memscope ' && fail "$1: still loaded after modprobe -r"
	return 0
}
# nothing_left WHAT: nothing was created, deleted or left in DKMS since the
# baseline, and no module index mentions memscope.
nothing_left() {
	created | sort > /tmp/after
	comm -13 /tmp/before /tmp/after > /tmp/left
	if [ -s /tmp/left ]; then
		sed 's/^/#   /' /tmp/left | head -n 30
		fail "$1 left $(wc -l < /tmp/left) paths behind"
	fi
	! grep -ls memscope /lib/modules/*/modules.dep /lib/modules/*/modules.alias ||
		fail "$1: a module index still names memscope"
	modinfo memscope > /dev/null 2>&1 && fail "$1: modinfo still finds memscope"
	diag "$1: nothing left behind"
}

created | sort > /tmp/before

# --- the packages ---------------------------------------------------------
if [ -z "${TEST_DKMS_BUILD:-}" ]; then
	# Where dh_dkms's postinst looks for a binaries-only DKMS tarball.
	mkdir -p /usr/share/memscope-dkms
	cp "$TARBALL" /usr/share/memscope-dkms/memscope-$VER.dkms.tar.gz
fi
t0=$(date +%s)
# shellcheck disable=SC2086
run dpkg -i $DEBS
diag "dpkg -i (DKMS $([ -n "${TEST_DKMS_BUILD:-}" ] && echo build || echo ldtarball) for $REL) took $(( $(date +%s) - t0 ))s"
dkms status -m memscope -v "$VER" -k "$REL" | grep -q ': installed' ||
	fail "dkms status: $(dkms status -m memscope)"
loaded_and_attached "deb" memscope
[ -f /usr/share/man/man8/memscope.8.gz ] || fail "no man page"
[ -f /usr/share/bash-completion/completions/memscope ] || fail "no bash completion"

# An unsupported kernel is refused with a reason, not a build error.
dkms build -m memscope -v "$VER" -k 4.9.0-13-amd64 > $LOG 2>&1
rc=$?
expect_eq "dkms build for 4.9 exits" $rc 77
grep -q BUILD_EXCLUSIVE $LOG || fail "no reason given for 4.9: $(cat $LOG)"
# make dkms-install must not overwrite the package's source tree.
make -s -C "$TOP" dkms-install > $LOG 2>&1 && fail "dkms-install ran over the package"
grep -q 'belongs to the memscope-dkms package' $LOG || fail "dkms-install: $(cat $LOG)"

run dpkg --purge memscope memscope-dkms
rm -rf /usr/share/memscope-dkms
nothing_left "dpkg --purge"

# --- make dkms-install ----------------------------------------------------
[ -n "${TEST_DKMS_BUILD:-}" ] || {
	diag "make dkms-install not run: it compiles (TEST_DKMS_BUILD=1 runs it)"
	exit 0
}
t0=$(date +%s)
run make -s -C "$TOP" dkms-install
diag "make dkms-install took $(( $(date +%s) - t0 ))s"
[ -x "$CLI" ] || fail "$CLI not built: run 'make cli' on the host"
loaded_and_attached "dkms-install" "$CLI"
run make -s -C "$TOP" dkms-uninstall
nothing_left "make dkms-uninstall"
exit 0
