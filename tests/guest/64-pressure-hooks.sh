#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-args: -m 256M --append psi=1
# pressure from the sites' own hooks, what kernels without memstall
# functions get (before 4.20, or CONFIG_PSI off): reclaim's tracepoints,
# kretprobes on balance_pgdat(), try_to_compact_pages() and
# kcompactd_do_work().  Loaded with pressure_hooks=1 on a kernel with PSI
# on, so that the kernel's own /proc/pressure/memory is the ground truth,
# on 62-pressure's workloads but the one beside a CPU hog (what runs
# beside a stall is the same code however the stall was seen).
PRESSURE_HOOKS=1 exec sh "$(dirname "$0")/62-pressure.sh"
