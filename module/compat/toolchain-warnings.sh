#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sort a compat-check build's warnings into those that come from running an
# old kernel's objtool on a newer toolchain's output, and all the others.
# Debian 12 has gcc 12 and binutils 2.40; RHEL 8 builds its 4.18 with gcc 8
# and binutils 2.30.  A warning is excused only when both halves are shown:
# the tree's objtool predates the upstream fix (it still holds the string
# the fix removed) and the object holds what the newer toolchain made.
#
#  - "sibling call from callable instruction with modified stack frame":
#    gcc 9 and later name a function's cold part f.cold, not f.cold.N, and
#    objtool before upstream bcb6fb5da77c ("objtool: Support GCC 9 cold
#    subfunction naming scheme") does not tie f.cold to f, so the jump
#    between them looks like a sibling call, and f.cold, checked on its
#    own, seems to jump out of a frame it never set up.  Excused when the
#    jump's destination is in f or f.cold, or when the jump is in f.cold.
#  - "f.cold() falls through to next function" and "f() falls through to
#    next function f.cold()": the same objtool, checking f and f.cold as
#    two functions, sees the end of one run into the other or into the
#    function after it (RHEL 8.6 to 8.10).  Excused for f.cold, and for f
#    when what follows is its own f.cold.
#
# RHEL 8.6 and later run objtool on .tmp_X.o, which Kbuild then renames
# to X.o: the warnings name the first, the checks read the second.
#  - "missing symbol for section S": GNU as from 2.36 (binutils d1bcae833b,
#    "ELF: Don't generate unused section symbols") leaves out a section
#    symbol that no relocation needs, and objtool's ORC generation before
#    upstream e81e07244325 ("objtool: Support Clang non-section symbols in
#    ORC generation") needs one.  Excused when S has no section symbol.
#
# See README, "Toolchain warnings".
# usage: toolchain-warnings.sh BUILDDIR KDIR.  Prints one summary line and
# exits 0 when every warning in BUILDDIR/build.log is one of these;
# otherwise prints the others and exits 1.
o=$1 kdir=$2
objtool=$kdir/tools/objtool/objtool
old_cold='' old_secsym=''
if [ -x "$objtool" ]; then
	strings "$objtool" | grep -qx '\.cold\.' && old_cold=1
	strings "$objtool" | grep -q 'missing symbol for section' && old_secsym=1
fi

# Does the jump at FUNC+OFF in OBJ land in FUNC or FUNC.cold?
jump_stays_in() {
	obj=$1 func=$2 off=$3
	objdump -t "$obj" >"$o/.syms" || return 1
	start=$(awk -v f="$func" '$NF == f { print $1; exit }' "$o/.syms")
	[ -n "$start" ] || return 1
	at=$(printf '%x' $((0x$start + off)))
	# The relocation after the jump: "ADDR: R_X86_64_PC32 SYM[+-]0xADDEND".
	dest=$(objdump -dr --no-show-raw-insn "$obj" | awk -v f="<$func>:" -v at="$at:" '
		$2 == f { in_f = 1; next }
		/^[0-9a-f]+ </ { in_f = 0 }
		in_f && hit { if ($2 ~ /^R_X86_64_(PC32|PLT32)$/) print $3; exit }
		in_f && $1 == at { hit = 1 }')
	[ -n "$dest" ] || return 1
	sym=${dest%%[+-]0x*}
	case $dest in
	*+0x*) add=$((0x${dest##*+0x})) ;;
	*-0x*) add=$((-0x${dest##*-0x})) ;;
	*) add=0 ;;
	esac
	# A rel32 jump lands at SYM + ADDEND + 4.
	awk -v s="$sym" -v d=$((add + 4)) -v b="$func" -v c="$func.cold" '
		function hex(x, i, n) {
			for (i = 1; i <= length(x); i++)
				n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return n
		}
		($NF == b || $NF == c) && ($NF == s || ($(NF - 2) == s &&
		 d >= hex($1) && d < hex($1) + hex($(NF - 1)))) { ok = 1 }
		END { exit !ok }' "$o/.syms"
}

cold=0 secsym=0 bad=0
grep -e 'warning:' -e 'error:' "$o/build.log" >"$o/.warnings"
while IFS= read -r line; do
	obj=${line%%: warning: objtool: *}
	case $obj in
	*/.tmp_*.o) [ -e "$obj" ] || obj=${obj%/.tmp_*}/${obj##*/.tmp_} ;;
	esac
	case $line in
	*': warning: objtool: '*'()+0x'*': sibling call from callable instruction with modified stack frame')
		w=${line#*: warning: objtool: }
		func=${w%%()+0x*}
		off=$((0x$(echo "$w" | sed 's/^[^(]*()+0x\([0-9a-f]*\):.*/\1/')))
		if [ -n "$old_cold" ] && { [ "$func" != "${func%.cold}" ] ||
		   jump_stays_in "$obj" "$func" "$off"; }; then
			cold=$((cold + 1))
			continue
		fi ;;
	*': warning: objtool: '*'.cold() falls through to next function'*|\
	*': warning: objtool: '*'() falls through to next function '*'.cold()')
		w=${line#*: warning: objtool: }
		func=${w%%()*}
		next=${w##* }
		if [ -n "$old_cold" ] && { [ "$func" != "${func%.cold}" ] ||
		   [ "$next" = "$func.cold()" ]; }; then
			cold=$((cold + 1))
			continue
		fi ;;
	*': warning: objtool: missing symbol for section '*)
		sec=${line##* }
		if [ -n "$old_secsym" ] &&
		   ! readelf -sW "$obj" | awk -v s="$sec" '$4 == "SECTION" && $NF == s { f = 1 } END { exit !f }'; then
			secsym=$((secsym + 1))
			continue
		fi ;;
	esac
	echo "$line"
	bad=1
done <"$o/.warnings"
rm -f "$o/.syms" "$o/.warnings"
[ $bad = 0 ] || exit 1
s=
[ $cold = 0 ] || s="$cold objtool vs gcc>=9 .cold"
[ $secsym = 0 ] || s="${s:+$s, }$secsym objtool vs as>=2.36 section symbols"
echo "$s"
