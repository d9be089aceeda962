# SPDX-License-Identifier: GPL-2.0
# Warnings an old kernel tree's own headers or Kbuild raise under a newer
# gcc's W=1, in every file of every external module: each is switched off
# only on a tree that has the cause, found in its files, not its version
# (distributions backport).  Included by memscope's Kbuild and the test
# modules' (tests/kmod/Kbuild).

# Before 4.10 an O= tree's Makefile.lib puts -I$(srctree)/$(src) on every
# command line, and for an external module that is M's absolute path
# under the source tree, which does not exist: W=1's
# -Wmissing-include-dirs would warn for every file.
ifneq ($(shell grep -qsF -- '-I$$(srctree)/$$(src) -I$$(obj)' $(srctree)/scripts/Makefile.lib && echo old),)
ccflags-y += -Wno-missing-include-dirs
endif

# 4.14 and RHEL 7 define timer_setup() as an inline function that casts
# the callback to the old timer type, and gcc 8's -Wcast-function-type
# (W=1's -Wextra) warns in every file that includes timer.h.
ifneq ($(shell grep -qs '(TIMER_FUNC_TYPE)callback' $(srctree)/include/linux/timer.h && echo old),)
ccflags-y += $(call cc-disable-warning,cast-function-type)
endif

# module_init() aliases init_module to the __init function without copying
# its attributes, and gcc 9 and later warn about that in every module; a
# header fix, upstream a6e60d84989f ("include/linux/module.h: copy
# __init/__exit attrs to init/cleanup_module"), not in RHEL 8's 4.18.  Probe
# the header, not the version: distributions backport it.
ifeq ($(shell grep -qs '__copy(initfn)' $(srctree)/include/linux/module.h || echo old),old)
ccflags-y += $(call cc-disable-warning,missing-attributes)
endif

# RHEL 8's Makefile puts -I$(objtree)/include/drm-backport on every command
# line, a directory only its DRM backport builds make: W=1's
# -Wmissing-include-dirs would warn for every file where it is missing.
ifneq ($(shell grep -qsF 'include/drm-backport' $(srctree)/Makefile && \
	       test ! -d $(objtree)/include/drm-backport && echo missing),)
ccflags-y += -Wno-missing-include-dirs
endif
