#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every kernel symbol memscope.ko uses must be exported by that kernel:
# memscope never calls a function through an address it looked up (IBT
# kernels oops on it), so an unexported one is a bug, found here rather
# than at modpost or insmod.  A tree prepared with modules_prepare has no
# Module.symvers, so the exports are then read from its sources (for an O=
# tree, those its "source" link names; 3.10's paravirt.c has a space
# before the parenthesis).
# usage: check-exports.sh MODULE.KO KDIR; prints the missing ones, exit 1
ko=$1 kdir=$2
srcdir=$kdir
[ -L "$kdir/source" ] && srcdir=$(readlink -f "$kdir/source")
exports=$(mktemp) || exit 2
trap 'rm -f "$exports"' EXIT
if [ -s "$kdir/Module.symvers" ]; then
	awk '{ print $2 }' "$kdir/Module.symvers" >"$exports"
else
	grep -rhoE --include='*.[chS]' \
		'EXPORT_(PER_CPU_)?SYMBOL(_GPL)?(_NS)?(_GPL)?[[:space:]]*\([A-Za-z0-9_]+' "$srcdir" |
		sed 's/.*(//' >"$exports"
	# static_call.h: EXPORT_STATIC_CALL{,_GPL}(f) exports the trampoline
	# __SCT__f and the key __SCK__f; the _TRAMP variants only __SCT__f
	# (6.8 exports might_resched and cond_resched that way with
	# PREEMPT_DYNAMIC, and might_sleep() calls the trampoline).
	grep -rhoE --include='*.[chS]' \
		'EXPORT_STATIC_CALL(_TRAMP)?(_GPL)?\([A-Za-z0-9_]+' "$srcdir" |
		sed -n -e 's/^EXPORT_STATIC_CALL_TRAMP\(_GPL\)\{0,1\}(/__SCT__/p' \
		    -e 's/^EXPORT_STATIC_CALL\(_GPL\)\{0,1\}(\(.*\)/__SCT__\2 __SCK__\2/p' |
		tr ' ' '\n' >>"$exports"
	# kernel/params.c exports these through a ## macro.
	printf '%s\n' param_ops_bool param_ops_charp param_ops_int param_ops_uint \
		param_ops_ulong >>"$exports"
fi
# arch/x86/lib/retpoline.S exports its thunks, and from 5.15 (RHEL 9.0
# too) the alternative call/jmp ones, through ## macros as well.
missing=$(nm -u "$ko" | awk '{ print $2 }' |
	grep -v '^__x86_indirect_thunk_\|^__x86_indirect_alt_\(call\|jmp\)_\|^__x86_return_thunk$' |
	sort -u | grep -vxFf "$exports" | tr '\n' ' ')
[ -z "$missing" ] && exit 0
echo "$missing"
exit 1
