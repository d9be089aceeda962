# vm-args: --overlay -m 1G
# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Install memscope as a Debian user would, on a writable overlay of the host
# root, and take it out again:
#
#	apt install ./memscope-dkms_<ver>_all.deb ./memscope_<ver>_amd64.deb
#	modprobe memscope; memscope status; modprobe -r memscope
#	apt purge memscope memscope-dkms
#
# memscope-dkms's postinst hands the module to DKMS, which installs it for
# the running kernel in /lib/modules/<release>/updates/dkms/.  Then modprobe
# must find it by name, "memscope status" must show probes attached,
# "modprobe -r" must unload it, and the purge must leave no file behind:
# the overlay's upper layer holds everything the guest created.
#
# The compile.  memscope's 12 files take gcc 15 s on the host and 14 minutes
# in a TCG guest (6.12, 2 vCPUs, loaded host), so by default the postinst
# loads a binaries-only DKMS tarball instead (dh_dkms's postinst does that
# when /usr/share/memscope-dkms/memscope-<ver>.dkms.tar.gz exists):
# scripts/dkms-prebuilt makes it on the host with "dkms build" for this
# kernel, from the same dkms.conf and sources, with the same DKMS, the same
# compiler and the same headers - the guest's root is the host's.  The rest
# of DKMS's work runs here: loading the module into its tree, installing it,
# depmod, and removing it all again.  TEST_DKMS_BUILD=1 has DKMS compile in
# the guest instead, and then also runs "make dkms-install" and "make
# dkms-uninstall" (a second compile).
#
# Under TCG everything is 20-50 times slower than on the host, so the
# overlay is made to look like a machine with one kernel:
# - the other kernels' headers (/lib/modules/*/build) are hidden, so DKMS
#   installs for the running kernel only (its postinst also builds for the
#   newest installed kernel);
# - depmod indexes updates/ only (/etc/depmod.d, "exclude kernel"): a full
#   "depmod -a" reads every module of the kernel, and Debian's 6.12 has 4230
#   .ko.xz files: 4-5 minutes under TCG, once at install and once at purge,
#   which is what timed this test out.  memscope depends on no other module,
#   so "modprobe memscope" needs nothing else from the index;
# - man-db's trigger is off (/var/lib/man-db/auto-update): it rebuilds the
#   man page index, not ours to test; the man page itself is checked;
# - apt reads no package lists (the guest has no network anyway): dkms and
#   everything else the packages depend on is installed, so apt resolves
#   the two .debs against the installed packages, 1 minute sooner.
. "$(dirname "$0")/lib.sh"
need_root

VER=$(cat "$TOP/VERSION")
DEBS="$TOP/build/deb/memscope-dkms_${VER}_all.deb $TOP/build/deb/memscope_${VER}_amd64.deb"
U=/run/vm-overlay/upper
L=/run/vm-overlay/lower
LOG=/tmp/install.log
TARBALL=$TOP/build/deb/prebuilt/memscope-$VER-$REL.dkms.tar.gz
BUILD=${TEST_DKMS_BUILD:-}
export DEBIAN_FRONTEND=noninteractive
# No package lists: see above.
APT="apt-get -y -q -o Dir::Etc::SourceList=/tmp/no-sources/sources.list
	-o Dir::Etc::SourceParts=/tmp/no-sources"

{ [ -d $U ] && touch /.memscope-rw 2>/dev/null && rm /.memscope-rw; } ||
	skip "needs a writable root (vm-run --overlay)"
for d in $DEBS; do [ -f "$d" ] || fail "$d missing: run 'make deb' on the host"; done
command -v dkms > /dev/null || skip "dkms not installed on the host"
[ -e "/lib/modules/$REL/build/include" ] || skip "no headers for $REL"
[ -z "$(ls /var/lib/dkms)" ] || fail "/var/lib/dkms is not empty at start"
[ -n "$BUILD" ] || [ -f "$TARBALL" ] ||
	fail "$TARBALL missing: run 'scripts/dkms-prebuilt build/deb/prebuilt $REL' on the host"

# --- a machine with one kernel, in the overlay only -------------------------
hidden=
for b in /lib/modules/*/build; do
	[ "$b" = "/lib/modules/$REL/build" ] && continue
	[ -e "$b" ] || [ -h "$b" ] || continue
	mv "$b" "$b.memscope-hidden" && hidden="$hidden $b"
done
mkdir -p /etc/depmod.d
echo "exclude kernel" > /etc/depmod.d/zz-memscope-test.conf
rm -f /var/lib/man-db/auto-update
mkdir -p /tmp/no-sources && : > /tmp/no-sources/sources.list
if [ -z "$BUILD" ]; then
	# Where dh_dkms's postinst looks for a binaries-only DKMS tarball.
	mkdir -p /usr/share/memscope-dkms
	cp "$TARBALL" "/usr/share/memscope-dkms/memscope-$VER.dkms.tar.gz"
fi
step=setup
T0=$(date +%s)
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	for b in $hidden; do mv "$b.memscope-hidden" "$b"; done
	hidden=
	rm -f /etc/depmod.d/zz-memscope-test.conf
	rm -rf /usr/share/memscope-dkms
	ms_unload 2>/dev/null
}
trap cleanup EXIT
# tests/guest/run.sh's timeout: say where it stopped and what it printed.
trap 'diag "killed after $(( $(date +%s) - T0 ))s in: $step"; tail -n 20 $LOG | sed "s/^/#   /"; exit 1' TERM

# What the guest created or deleted on the root filesystem (the overlay's
# upper layer, less what only changed an existing file), and what is in
# /var/lib/dkms (a tmpfs of its own).  DKMS's own signing key (mok.*) is
# DKMS state, not memscope's: it stays for the next module, as on a host.
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
# run WHAT CMD...: a step, timed; its output is shown only when it fails.
run() {
	step=$1; shift
	t=$(date +%s)
	"$@" > $LOG 2>&1 || {
		sed 's/^/#   /' $LOG | tail -n 30
		fail "$step: $* failed"
	}
	diag "$step: $(( $(date +%s) - t ))s"
}
# dkms_installed WHAT: DKMS has memscope installed for this kernel and for
# no other, built for this kernel, signed with DKMS's key (what Secure Boot
# needs once the key is enrolled).
dkms_installed() {
	dkms status -m memscope > /tmp/dkms.status 2>&1
	grep -q "^memscope/$VER, $REL, [^:]*: installed" /tmp/dkms.status ||
		fail "$1: dkms status: $(cat /tmp/dkms.status)"
	expect_eq "$1: kernels DKMS has memscope for" "$(grep -c '^memscope/' /tmp/dkms.status)" 1
	expect_eq "$1: vermagic" "$(modinfo -F vermagic memscope | cut -d' ' -f1)" "$REL"
	signer=$(modinfo -F signer memscope 2>/dev/null)
	[ -n "$signer" ] || fail "$1: the module is not signed"
	diag "$1: signed by \"$signer\""
}
# loaded_and_attached WHAT CLI: modprobe by name, the CLI sees probes
# attached, modprobe -r unloads.
loaded_and_attached() {
	path=$(modinfo -n memscope 2>/dev/null) || fail "$1: modinfo: no memscope module for $REL"
	case $path in
	/lib/modules/$REL/updates/*) diag "$1: modprobe finds $path" ;;
	*) fail "$1: memscope module at $path, want /lib/modules/$REL/updates/" ;;
	esac
	expect_eq "$1: module version" "$(modinfo -F version memscope)" "$VER"
	run "$1: modprobe memscope" modprobe memscope
	lsmod | grep -q '^memscope ' || fail "$1: not loaded after modprobe"
	$2 status > /tmp/status.out 2>&1 || { cat /tmp/status.out; fail "$1: $2 status failed"; }
	grep -q "^memscope $VER (cli $VER), kernel $REL" /tmp/status.out ||
		fail "$1: status header: $(head -n 1 /tmp/status.out)"
	attached=$(awk '$3 == "attached"' /tmp/status.out | wc -l)
	awk '$1 == "faults" && $3 == "attached" { f = 1 } END { exit !f }' /tmp/status.out ||
		fail "$1: faults probe not attached: $(cat /tmp/status.out)"
	diag "$1: memscope status shows $attached probes attached"
	run "$1: modprobe -r memscope" modprobe -r memscope
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

# --- the packages ------------------------------------------------------------
# shellcheck disable=SC2086
run "apt install" $APT install $DEBS
if [ -n "$BUILD" ]; then
	{ grep -q "^Building initial module for $REL" $LOG && ! grep -q 'Loading tarball' $LOG; } ||
		fail "postinst did not build for $REL: $(cat $LOG)"
	diag "apt install: DKMS compiled memscope for $REL in the guest"
else
	grep -q "^Loading tarball for memscope-$VER" $LOG ||
		fail "postinst did not load the prebuilt tarball: $(cat $LOG)"
	diag "apt install: DKMS loaded memscope for $REL from the tarball dkms-prebuilt built"
fi
dkms_installed "apt install"
loaded_and_attached "apt install" memscope
[ -f /usr/share/man/man8/memscope.8.gz ] || fail "no man page"
[ -f /usr/share/bash-completion/completions/memscope ] || fail "no bash completion"

# An unsupported kernel is refused with a reason, not a build error.
step="dkms build for 2.6.32"
dkms build -m memscope -v "$VER" -k 2.6.32-754.el6.x86_64 > $LOG 2>&1
rc=$?
expect_eq "dkms build for 2.6.32 exits" $rc 77
grep -q BUILD_EXCLUSIVE $LOG || fail "no reason given for 2.6.32: $(cat $LOG)"
# make dkms-install must not overwrite the package's source tree.
step="make dkms-install over the package"
make -s -C "$TOP" dkms-install > $LOG 2>&1 && fail "dkms-install ran over the package"
grep -q 'belongs to the memscope-dkms package' $LOG || fail "dkms-install: $(cat $LOG)"

# shellcheck disable=SC2086 # $APT is apt-get and its options
run "apt purge" $APT purge memscope memscope-dkms
nothing_left "apt purge"

# --- make dkms-install -------------------------------------------------------
[ -n "$BUILD" ] || {
	diag "make dkms-install not run: it compiles (TEST_DKMS_BUILD=1 runs it)"
	diag "total: $(( $(date +%s) - T0 ))s"
	exit 0
}
[ -x "$CLI" ] || fail "$CLI not built: run 'make cli' on the host"
run "make dkms-install" make -s -C "$TOP" dkms-install
dkms_installed "make dkms-install"
loaded_and_attached "make dkms-install" "$CLI"
run "make dkms-uninstall" make -s -C "$TOP" dkms-uninstall
nothing_left "make dkms-uninstall"
diag "total: $(( $(date +%s) - T0 ))s"
exit 0
