# SPDX-License-Identifier: GPL-2.0
# memscope: a thin wrapper over Kbuild, plus the CLI, tests and setup.
#
#   make                     module for KDIR (the running kernel) and the CLI
#   make KVER=<release>      module into build/<release>/memscope.ko
#   make W=1                 extra warnings, passed through to Kbuild
#   make deps                install what building and testing need (apt)
#   make check               the whole test suite (host and guests)
#   make demo                boot a guest and show memscope at work
#   make install / uninstall, dkms-install / dkms-uninstall

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
MODULE_SOURCES := Kbuild VERSION $(shell find module -name '*.[ch]' -o -name '*.sh' | sort)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all module cli clean deps check check-host check-guest demo install uninstall \
	dkms-install dkms-uninstall kernels

all: module cli

module:
	@test -d "$(KDIR)" || { echo "Error: no kernel build tree at '$(KDIR)'; install linux-headers-$(or $(KVER),$$(uname -r)) or set KDIR" >&2; exit 1; }
ifneq ($(KVER),)
	@mkdir -p $(MODDIR)
	@tar cf - $(MODULE_SOURCES) | tar xf - -C $(MODDIR)
endif
	$(MAKE) -C $(KDIR) M=$(MODDIR) W=$(W) modules

cli:
	$(MAKE) -C userspace

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null
	-$(MAKE) -C userspace clean
	rm -rf build/*/ 2>/dev/null; true

# The Debian kernels the guest suite runs on.  Every non-RT kernel with
# headers installed is tested.
kernels:
	@ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's,.*/linux-headers-,,' | \
		grep -v -- '-rt-' | while read r; do test -e /boot/vmlinuz-$$r && echo $$r; done

deps:
	scripts/deps

check:
	tests/run-all

check-host: cli
	tests/host/run.sh

demo:
	scripts/demo

install: module cli
	$(MAKE) -C $(KDIR) M=$(MODDIR) modules_install
	depmod $(if $(KVER),$(KVER),$$(uname -r))
	$(MAKE) -C userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall:
	rm -f /lib/modules/$(if $(KVER),$(KVER),$$(uname -r))/updates/memscope.ko* \
	      /lib/modules/$(if $(KVER),$(KVER),$$(uname -r))/extra/memscope.ko*
	depmod $(if $(KVER),$(KVER),$$(uname -r))
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

dkms-install:
	scripts/dkms-install $(KVER)

dkms-uninstall:
	dkms remove memscope/$(VERSION) --all
