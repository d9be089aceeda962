#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mapping a file of M pages and reading one byte of each faults exactly M
# times on that file's row, once fault-around is off (fault_around_bytes is
# 4096; before 3.15 there is none).  The file lives on tmpfs and has a name
# nothing else uses.
. "$(dirname "$0")/lib.sh"
need_root
M=777
F=/tmp/memscope-ffaults-$$.dat
FA=/sys/kernel/debug/fault_around_bytes
if [ -w $FA ]; then
	old=$(cat $FA)
	echo 4096 > $FA
	trap 'echo $old > $FA; rm -f $F; ms_unload' EXIT
else
	# Fault-around (->map_pages) and its knob came together in 3.15:
	# before, every page of a mapping faults on its own.
	kver_ge 3 15 && skip "no $FA"
	diag "no fault-around before 3.15 (no $FA): each page faults"
	trap 'rm -f $F; ms_unload' EXIT
fi
dd if=/dev/urandom of=$F bs=4096 count=$M status=none
ms_load
"$W/touch_file" $F | sed 's/^/# /'
name=${F##*/}
got=$(awk -v f="$name" '$1 == f { print $2 }' $D/faults_by_file)
expect_eq "faults on $name" "${got:-0}" $M
shm=$(ms_stat faults_shmem)
expect_ge "faults_shmem (tmpfs file)" "$shm" $M
exit 0
