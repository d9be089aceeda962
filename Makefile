# SPDX-License-Identifier: GPL-2.0
# memscope: a thin wrapper over Kbuild, plus the CLI, tests and setup.
#
#   make                     module for KDIR (the running kernel) and the CLI
#   make KVER=<release>      module into build/<release>/memscope.ko
#   make W=1                 extra warnings, passed through to Kbuild
#   make deps                install what building and testing need (apt)
#   make check               the whole test suite (host and guests)
#   make check-debug         the guest suite on a KASAN/kmemleak/lockdep 6.1 kernel
#   make check-old CHECK_OLD_TREES="..."  the guest suite on kernels built from source
#   make demo                boot a guest and show memscope at work
#   make install / uninstall, dkms-install / dkms-uninstall, install-autoload
#   make deb                 the memscope and memscope-dkms packages (build/deb/)

VERSION := $(shell cat VERSION)
TOP := $(CURDIR)
KVER ?=
ifneq ($(KVER),)
KDIR ?= $(firstword $(wildcard /usr/src/linux-headers-$(KVER) /lib/modules/$(KVER)/build))
MODDIR := $(TOP)/build/$(KVER)
else
KDIR ?= /lib/modules/$(shell uname -r)/build
MODDIR := $(TOP)
endif
MODULE_SOURCES := Kbuild VERSION $(shell find module -name '*.[ch]' -o -name '*.sh' -o -name '*.mk' | sort)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all module cli clean deps check check-host check-guest demo install uninstall \
	dkms-install dkms-uninstall install-autoload uninstall-autoload deb rpm kernels rt-kernels bench \
	test-modules \
	check-debug check-old

all: module cli

module:
	@test -d "$(KDIR)" || { echo "Error: no kernel build tree at '$(KDIR)'; install linux-headers-$(or $(KVER),$$(uname -r)) or set KDIR" >&2; exit 1; }
ifneq ($(KVER),)
	@mkdir -p $(MODDIR)
	@tar cf - $(MODULE_SOURCES) | tar xf - -C $(MODDIR)
endif
	$(MAKE) -C $(KDIR) M=$(MODDIR) W=$(W) modules

cli:
	$(MAKE) -C userspace all msread memscope-test

# Test fixtures for the guest suite (tests/kmod), into build/<release>/kmod.
# msshrink keeps only the symbols it needs to load: its shrinker's
# callbacks must have no name in kallsyms (tests/guest/30-shrinkers.sh).
test-modules:
	@test -n "$(KVER)" || { echo "Error: give KVER=<release>" >&2; exit 1; }
	@test -d "$(KDIR)" || { echo "Error: no kernel build tree at '$(KDIR)'; install linux-headers-$(KVER) or set KDIR" >&2; exit 1; }
	@mkdir -p $(MODDIR)/kmod
	@cp tests/kmod/Kbuild tests/kmod/*.c module/compat/quirks.mk $(MODDIR)/kmod/
	$(MAKE) -C $(KDIR) M=$(MODDIR)/kmod W=$(W) modules
	objcopy --strip-unneeded -N __this_module -N __start_alloc_tags -N __stop_alloc_tags \
		$(MODDIR)/kmod/msshrink.ko

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null
	-$(MAKE) -C userspace clean
	rm -rf build/*/ 2>/dev/null; true

# The Debian kernels the guest suite runs on: every kernel with headers
# installed, non-RT (kernels) and PREEMPT_RT (rt-kernels).
kernels:
	@ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's,.*/linux-headers-,,' | \
		grep -v -- '-rt-' | while read r; do test -e /boot/vmlinuz-$$r && echo $$r; done

rt-kernels:
	@ls -d /usr/src/linux-headers-*-rt-amd64 2>/dev/null | sed 's,.*/linux-headers-,,' | \
		while read r; do test -e /boot/vmlinuz-$$r && echo $$r; done

# Build the module, W=1, against every prepared kernel tree in KDIRS and
# print one line per tree; see module/compat/README.  A tree's name is its
# directory's (its parent's when that is "build", as /lib/modules/R/build).
# Every kernel symbol the module uses must also be exported by that tree.
# Warnings that only come from an old tree's objtool meeting a newer
# toolchain are named in an "ok (toolchain warnings: ...)" result
# (module/compat/toolchain-warnings.sh); any other warning fails.
compat-check:
	@test -n "$(KDIRS)" || { echo "Error: no trees given; use make compat-check KDIRS=\"DIR...\"" >&2; exit 2; }
	@fail=0; for k in $(KDIRS); do \
		k=$$(cd "$$k" 2>/dev/null && pwd -P) || { echo "$$k: FAIL (no such directory)"; fail=1; continue; }; \
		n=$$(basename "$$k"); test "$$n" != build || n=$$(basename "$$(dirname "$$k")"); \
		o=$(TOP)/build/compat/$$n; rm -rf "$$o"; mkdir -p "$$o"; \
		tar cf - $(MODULE_SOURCES) | tar xf - -C "$$o"; \
		r=$$(cat "$$k/include/config/kernel.release" 2>/dev/null || echo unprepared); t=; \
		if $(MAKE) -C "$$k" M="$$o" W=1 KBUILD_MODPOST_WARN=1 modules >"$$o/build.log" 2>&1; then \
			if ! grep -q -e 'warning:' -e 'error:' "$$o/build.log"; then s=ok; \
			elif t=$$(sh module/compat/toolchain-warnings.sh "$$o" "$$k"); then \
				s="ok (toolchain warnings: $$t)"; \
			else s=FAIL; fi; \
			if test "$$s" != FAIL && ! u=$$(sh module/compat/check-exports.sh "$$o/memscope.ko" "$$k"); then \
				s="FAIL (not exported: $$u)"; fi; \
		else s=FAIL; fi; \
		case "$$s" in ok*) ;; *) fail=1 ;; esac; \
		printf '%-36s %-24s %s\n' "$$n" "$$r" "$$s"; \
		test "$$s" = FAIL && { test -n "$$t" && echo "$$t" || \
			grep -e 'warning:' -e 'error:' -e 'Error' "$$o/build.log"; } | sed -n '1,5s/^/    /p'; \
	done; exit $$fail

deps:
	scripts/deps

# Like demo, check installs what it needs first (as root; a user without
# root who has everything installed gets on with the tests).
check:
	scripts/deps
	tests/run-all

# Builds a 6.1 kernel with KASAN, kmemleak and lockdep from Debian's
# linux-source-6.1 (cached in build/debug-kernel/, 20-40 min the first
# time), installs it for vm-run and runs the guest suite on it; not part of
# check (see docs/testing.md).
check-debug:
	scripts/check-debug

# Builds kernels older than Debian's from source trees given in
# CHECK_OLD_TREES (kernel.org releases, unpacked; nothing is downloaded),
# installs them for vm-run and runs the guest suite on each; not part of
# check (see docs/testing.md, Old kernels).
check-old:
	scripts/check-old

check-host: cli
	tests/host/run.sh

demo:
	scripts/demo

bench:
	scripts/deps bench
	scripts/bench

# The release the module is built for: KVER, or the one KDIR's headers were
# configured for.  Not include/config/kernel.release: Debian's 6.1 headers
# say 6.1.NNN there, so modules_install would pick the wrong directory.
KREL = $(or $(KVER),$(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null),$(shell uname -r))
MODULES_DIR = $(DESTDIR)/lib/modules/$(KREL)

# The module goes to updates/ (searched before the kernel's own modules), so
# that "modprobe memscope" finds it.  Distribution headers carry no signing
# key, so signing is off here (DKMS signs with its MOK key instead).  depmod
# runs only for a live install: a packager's DESTDIR has no module index.
install: module cli
	$(MAKE) -C $(KDIR) M=$(MODDIR) KERNELRELEASE=$(KREL) INSTALL_MOD_DIR=updates \
		CONFIG_MODULE_SIG_ALL= \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	$(if $(DESTDIR),,depmod -a $(KREL))
	$(MAKE) -C userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall: uninstall-autoload
	rm -f $(MODULES_DIR)/updates/memscope.ko* $(MODULES_DIR)/extra/memscope.ko*
	$(if $(DESTDIR),,depmod -a $(KREL))
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# Load at boot, only when asked for: systemd-modules-load reads the first
# snippet; the second holds module options (commented out: procfs=1).
install-autoload:
	install -D -m 0644 packaging/modules-load.d/memscope.conf \
		$(DESTDIR)/etc/modules-load.d/memscope.conf
	install -D -m 0644 packaging/modprobe.d/memscope.conf \
		$(DESTDIR)/etc/modprobe.d/memscope.conf

uninstall-autoload:
	rm -f $(DESTDIR)/etc/modules-load.d/memscope.conf $(DESTDIR)/etc/modprobe.d/memscope.conf

dkms-install:
	scripts/dkms-install $(KVER)

dkms-uninstall:
	scripts/dkms-uninstall $(KVER)

# memscope-dkms_<ver>_all.deb and memscope_<ver>_<arch>.deb in build/deb/
deb:
	scripts/deb

# memscope and memscope-dkms RPMs and the source rpm, into build/rpm/
# (docs/install.md; tests/rpm.sh checks them).
rpm:
	scripts/rpm
