# ccsuite: BPF congestion controls, the test switch, ccload, tests, demo.
# `make` builds; `make deps` installs what a fresh Debian 12 machine lacks.

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

CLANG     ?= clang
BPFTOOL   ?= bpftool
CC        ?= cc
BUILD     := build

ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -D__TARGET_ARCH_$(ARCH) \
	      -Ivmlinux -Ibpf -Ibpf/lib -Itc
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I$(BUILD) -Ibpf -Ibpf/lib -Itc -Iloader -Iloader/lib -Ibench
LDLIBS_BPF := -lbpf -lelf -lz

# One object per algorithm (bpf/<algo>.bpf.c) plus the switch (tc/), and
# for each algorithm a variant for kernels before 6.10 (-DCCS_PRE_6_10,
# see bpf/lib/ccsuite.bpf.h); ccload picks one at run time.  ALGOS is the
# one list of the suite's algorithms, in `ccload list`'s order: each word
# is bpf/<algo>.bpf.c, bpf/<algo>.h and its registry file
# loader/algos/<algo>.c (its entry algo_<algo>, and its own command if it
# has one), which $(BUILD)/registry_algos.h lists for the registry.
ALGOS     := dctcp bbr tldct flashpass lia ppqd
# Algorithms using atomics beyond add (compare-and-swap in the group
# table, fetch_or): BPF cpu v3.
CPU_V3    := lia ppqd tldct
# Algorithms with TC roles: bpf/<algo>.bpf.c and tc/<algo>.bpf.c linked
# into the one object (bpftool gen object), so they share its maps.
LINKED    := flashpass
TC_PROGS  := switch
BPF_OBJS  := $(ALGOS:%=$(BUILD)/%.bpf.o) $(ALGOS:%=$(BUILD)/%.pre610.bpf.o) \
	     $(TC_PROGS:%=$(BUILD)/%.bpf.o)
SKELS     := $(BPF_OBJS:.bpf.o=.skel.h)

# loader/lib: the library (objects, registry, attach, pins, stats, parse,
# log, the command skeleton cli.c) and loader/algos: the registry's
# entries with their own commands (coupled.c: what lia and ppqd share),
# libccsuite.a, that ccload and any other program (a daemon, a test)
# link; loader/*.c: ccload's generic commands, --man and --completion.
ALGO_SRCS := $(ALGOS:%=loader/algos/%.c) loader/algos/coupled.c
# a registry file that is in no word of ALGOS would be left out unseen
$(foreach f,$(filter-out $(ALGO_SRCS),$(wildcard loader/algos/*.c)),\
	$(error $(f): not an algorithm of ALGOS (Makefile)))
LIB_SRCS  := $(wildcard loader/lib/*.c) $(ALGO_SRCS)
LIB_OBJS  := $(LIB_SRCS:loader/%.c=$(BUILD)/loader/%.o)
LIBCCS    := $(BUILD)/libccsuite.a
LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(LOADER_SRCS:loader/%.c=$(BUILD)/loader/%.o)
# The parts of the library that unit tests link against (no libbpf calls).
LOADER_PURE := $(BUILD)/loader/lib/parse.o

TOOLS     := $(BUILD)/tcpxfer $(BUILD)/wlgen $(BUILD)/flowsample $(BUILD)/ccost \
	     $(BUILD)/units $(BUILD)/delayline $(BUILD)/docgen
# bench/cpucost's twins: each algorithm with nothing extra (bench/twins/)
# and the suite algorithms built from their own source with -DCCS_TWIN
SELF_TWINS := bbr tldct
TWINS     := $(BUILD)/bench/dctcp_twin.bpf.o $(SELF_TWINS:%=$(BUILD)/bench/%_twin.bpf.o) \
	     $(SELF_TWINS:%=$(BUILD)/bench/%_twin.pre610.bpf.o)

DEPS_PKGS := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config \
	     libcriterion-dev iperf3 iproute2 ethtool jq bpftrace util-linux procps \
	     vde2 gnuplot-nox fonts-liberation iputils-ping shellcheck clang-format python3 \
	     groff-base man-db debhelper systemd

# shell scripts: the *.sh files and every tracked file with a shell #!
SCRIPTS    = $(sort $(shell git ls-files '*.sh'; git ls-files | xargs grep -l '^\#!.*\(bash\|/sh\)' 2>/dev/null))
C_SRCS     = $(shell git ls-files '*.c' '*.h' | grep -v '^vmlinux/')

.PHONY: all deps install uninstall FORCE vmlinux lint check-published publish-pages check-docs docs man test test-host test-unit test-kern test-net vmtest demo bench-accuracy bench-cpucost clean

TEST_BPF  := $(BUILD)/test/bad_cc.bpf.o $(BUILD)/test/tldct_mangle.bpf.o \
	     $(BUILD)/test/other_cc.bpf.o $(BUILD)/test/dotdot_cc.bpf.o \
	     $(BUILD)/test/ccsdummy.bpf.o $(BUILD)/test/dctcp_fault.bpf.o \
	     $(BUILD)/test/dctcp_fault.pre610.bpf.o

all: $(BPF_OBJS) $(BUILD)/ccload $(TOOLS) $(TEST_BPF) $(TWINS)

$(BUILD) $(BUILD)/loader $(BUILD)/loader/lib $(BUILD)/loader/algos $(BUILD)/test $(BUILD)/bench:
	mkdir -p $@

# The version: debian/changelog's first entry, the one place it is written
# (the package's and `ccload --version`'s).  The build adds the commit (its
# hash, -dirty with local changes) where git can read the tree: not in a
# tarball, nor as root in a tree another user owns (git's
# safe.directory), and then an existing $(BUILD)/version.h of the same
# version stays, so that `sudo make install` rebuilds nothing.  It is
# rewritten only when it changes.
VERSION   := $(shell awk -F'[()]' 'NR == 1 && $$1 == "ccsuite " { print $$2 }' debian/changelog)
GIT_DESC  := $(shell git describe --always --dirty --exclude='*' 2>/dev/null)
ifeq ($(VERSION),)
$(error debian/changelog: no version in its first line)
endif

$(BUILD)/version.h: FORCE | $(BUILD)
	@printf '#define CCS_VERSION "%s"\n#define CCS_GIT "%s"\n' '$(VERSION)' '$(GIT_DESC)' >$@.tmp
	@if cmp -s $@.tmp $@ || { [ -z '$(GIT_DESC)' ] && grep -qF '"$(VERSION)"' $@ 2>/dev/null; }; \
	then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

$(BUILD)/loader/main.o: $(BUILD)/version.h

# Only what is missing is installed; apt-get update runs only then.
# Without recommends: gnuplot's would bring groff, and groff's ImageMagick and
# Ghostscript (about 60 packages CI does not need); fonts-liberation is the one
# the PNG plots use.  groff-base and man-db: make check-docs renders ccload(8);
# debhelper and systemd: test t_deb builds the package, t_service verifies
# the units (systemd-analyze).
deps:
	@missing=$$(for p in $(DEPS_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	else echo "dependencies: all installed"; fi

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.pre610.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -DCCS_PRE_6_10 -c $< -o $@

$(CPU_V3:%=$(BUILD)/%.bpf.o) $(CPU_V3:%=$(BUILD)/%.pre610.bpf.o) \
$(CPU_V3:%=$(BUILD)/bench/%_twin.bpf.o) $(CPU_V3:%=$(BUILD)/bench/%_twin.pre610.bpf.o): BPF_CFLAGS += -mcpu=v3

$(BUILD)/%.bpf.o: tc/%.bpf.c $(wildcard tc/*.h bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The parts of a linked algorithm; -mcpu=v3 for atomics whose result is used.
$(BUILD)/%.cc.o: bpf/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -mcpu=v3 -c $< -o $@

$(BUILD)/%.pre610.cc.o: bpf/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -mcpu=v3 -DCCS_PRE_6_10 -c $< -o $@

$(BUILD)/%.tc.o: tc/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h tc/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -mcpu=v3 -c $< -o $@

$(LINKED:%=$(BUILD)/%.bpf.o): $(BUILD)/%.bpf.o: $(BUILD)/%.cc.o $(BUILD)/%.tc.o
	$(BPFTOOL) gen object $@ $^

$(LINKED:%=$(BUILD)/%.pre610.bpf.o): $(BUILD)/%.pre610.bpf.o: $(BUILD)/%.pre610.cc.o $(BUILD)/%.tc.o
	$(BPFTOOL) gen object $@ $^

$(BUILD)/test/%.bpf.o: test/kern/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h test/kern/*.h) | $(BUILD)/test
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/%.bpf.o: bench/twins/%.bpf.c $(wildcard bpf/lib/*.h) vmlinux/vmlinux.h | $(BUILD)/bench
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# twin_bbr, twin_tldct: the algorithm's own source without stats or
# repair (CCS_TWIN)
$(SELF_TWINS:%=$(BUILD)/bench/%_twin.bpf.o): $(BUILD)/bench/%_twin.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)/bench
	$(CLANG) $(BPF_CFLAGS) -DCCS_TWIN -c $< -o $@

$(SELF_TWINS:%=$(BUILD)/bench/%_twin.pre610.bpf.o): $(BUILD)/bench/%_twin.pre610.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)/bench
	$(CLANG) $(BPF_CFLAGS) -DCCS_TWIN -DCCS_PRE_6_10 -c $< -o $@

# bpf_dctcp whose ssthresh() and undo_cwnd() results reach the kernel
# corrupted every other time (ccs_ret()), for the repair's test
$(BUILD)/test/dctcp_fault.bpf.o: bpf/dctcp.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)/test
	$(CLANG) $(BPF_CFLAGS) -DCCS_FAULT_RET -c $< -o $@

$(BUILD)/test/dctcp_fault.pre610.bpf.o: bpf/dctcp.bpf.c $(wildcard bpf/*.h bpf/*/*.h) vmlinux/vmlinux.h | $(BUILD)/test
	$(CLANG) $(BPF_CFLAGS) -DCCS_FAULT_RET -DCCS_PRE_6_10 -c $< -o $@

# other_cc under a name that must never become a directory
$(BUILD)/test/dotdot_cc.bpf.o: test/kern/other_cc.bpf.c $(wildcard bpf/*.h bpf/*/*.h) | $(BUILD)/test
	$(CLANG) $(BPF_CFLAGS) '-DCC_NAME=".."' -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BUILD)/%.pre610.skel.h: $(BUILD)/%.pre610.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_pre610_bpf > $@

$(BUILD)/loader/lib/%.o: loader/lib/%.c $(wildcard loader/lib/*.h bpf/*.h bpf/*/*.h) $(SKELS) | $(BUILD)/loader/lib
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/loader/algos/%.o: loader/algos/%.c $(wildcard loader/*.h loader/algos/*.h loader/lib/*.h bpf/*.h bpf/*/*.h tc/*.h) $(SKELS) | $(BUILD)/loader/algos
	$(CC) $(CPPFLAGS) $(CFLAGS) -Iloader/algos -c $< -o $@

$(BUILD)/loader/%.o: loader/%.c $(wildcard loader/*.h loader/lib/*.h bpf/*.h bpf/*/*.h tc/*.h) $(SKELS) | $(BUILD)/loader
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# CCS_ALGOS(X) with X(<algo>) for each algorithm, in ALGOS' order (ccload
# list's): the registry's entries.
$(BUILD)/registry_algos.h: Makefile | $(BUILD)
	{ echo '/* generated from the Makefile (ALGOS): do not edit */'; \
	  printf '#define CCS_ALGOS(X)'; printf ' X(%s)' $(ALGOS); echo; } > $@

$(BUILD)/loader/lib/registry.o: $(BUILD)/registry_algos.h

$(LIBCCS): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/ccload: $(LOADER_OBJS) $(LIBCCS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDFLAGS) -o $@ $(LDLIBS_BPF)

# the tools parse rates and sizes as ccload does (loader/lib/parse.c)
$(BUILD)/tcpxfer: bench/tcpxfer.c bench/pattern.h $(LOADER_PURE) loader/lib/util.h loader/task_api.h bpf/tldct.h | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LOADER_PURE) $(LDFLAGS) -o $@ -lm

$(BUILD)/ccost: bench/ccost.c $(LOADER_PURE) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LOADER_PURE) $(LDFLAGS) -o $@

# the scripts' rates, sizes and times (test/net/topo.sh, bench/run)
$(BUILD)/units: bench/units.c $(LOADER_PURE) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LOADER_PURE) $(LDFLAGS) -o $@

$(BUILD)/flowsample: bench/flowsample.c $(LOADER_PURE) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LOADER_PURE) $(LDFLAGS) -o $@

# the test network's delay line (test/net/topo.sh, backend "tap")
$(BUILD)/delayline: bench/delayline.c $(LOADER_PURE) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LOADER_PURE) $(LDFLAGS) -o $@

# docs/*.md's tables of tunables and stats, from the registry and bpf/'s lists
$(BUILD)/docgen: docs/docgen.c $(LIBCCS) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LIBCCS) $(LDFLAGS) -o $@ $(LDLIBS_BPF)

$(BUILD)/wlgen: bench/wlgen.c $(LOADER_PURE) bench/cdf.h bench/pattern.h loader/lib/util.h loader/task_api.h \
		bpf/tldct.h | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LOADER_PURE) $(LDFLAGS) -o $@ -lm

# Style: shellcheck (warnings and errors) on every script, clang-format
# (.clang-format, kernel style) on every C file; both only check.
lint:
	shellcheck -x -S warning -s bash $(filter-out test/vm/init,$(SCRIPTS))
	shellcheck -S warning test/vm/init
	clang-format --dry-run -Werror $(C_SRCS)

# Every published table and result page made again from its JSON, and the
# docs' marked copies of the tables, must match (bench/check-published); it
# lists, without failing, the JSONs measured before the last change to
# their code.
check-published:
	bench/check-published

# The result pages, bench/published/*/README.md, made again from their
# JSON and bench/lib/*.page.md (check-published fails where they differ).
publish-pages:
	bench/publish-pages

# docs/*.md's generated tables (tunables, stats) must be what the code
# makes (docs/gen-tables --check), every ccload command line in
# README.md and docs/ must use commands and options ccload has
# (docs/check-commands), and the man page and the bash completion must
# render and complete (docs/check-man).  `make docs` rewrites the tables.
check-docs: $(BUILD)/docgen $(BUILD)/ccload man
	docs/gen-tables --check
	docs/check-commands
	docs/check-man

# ccload(8) and the bash completion, made by ccload from the commands'
# option tables and the registry (loader/doc.c): man -l build/ccload.8;
# . build/ccload.bash-completion
man: $(BUILD)/ccload.8 $(BUILD)/ccload.bash-completion

$(BUILD)/ccload.8: $(BUILD)/ccload
	$< --man > $@

$(BUILD)/ccload.bash-completion: $(BUILD)/ccload
	$< --completion > $@

docs: $(BUILD)/docgen
	docs/gen-tables

# ---- tests ----
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_BIN  := $(BUILD)/test/unit
KERN_SRCS := $(filter-out %.bpf.c,$(wildcard test/kern/*.c))
KERN_BIN  := $(BUILD)/test/kern

$(UNIT_BIN): $(UNIT_SRCS) $(LOADER_PURE) $(wildcard bpf/*.h bpf/*/*.h tc/*.h bench/*.h) | $(BUILD)/test
	$(CC) $(CPPFLAGS) $(CFLAGS) $(UNIT_SRCS) $(LOADER_PURE) $(LDFLAGS) -o $@ -lcriterion -lm

# test-only algorithms (test/kern/test_algo.c; bpf_ccsdummy's registry file
# test/kern/ccsdummy.c)
$(BUILD)/test/%.skel.h: $(BUILD)/test/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(KERN_BIN): $(KERN_SRCS) $(SKELS) $(BUILD)/test/ccsdummy.skel.h $(LIBCCS) | $(BUILD)/test
	$(CC) $(CPPFLAGS) $(CFLAGS) -I$(BUILD)/test $(KERN_SRCS) $(LIBCCS) $(LDFLAGS) -o $@ -lcriterion $(LDLIBS_BPF)

# Every test: on the running kernel, then under Debian's 6.1 in qemu
# (test/vm/suite: the runner's tests and the integration subset).
test: deps all $(UNIT_BIN) $(KERN_BIN)
	test/run

test-host: deps all $(UNIT_BIN) $(KERN_BIN)
	test/run --host-only

test-unit: $(UNIT_BIN)
	$(UNIT_BIN)

test-kern: all $(KERN_BIN)
	$(KERN_BIN)

test-net: all
	test/net/run

# Under a pinned Debian kernel in qemu (test/vm/): KERNEL=6.1 (the default:
# the runner's own tests, then integration tests) or KERNEL=6.12.  VM_TESTS:
# the names of some (default: the kernel's subset, test/vm/suite says
# which and why; about 10 minutes under TCG for 6.1) or "all".
KERNEL ?= 6.1
VM_TESTS ?=
vmtest: all
	test/vm/suite --kernel $(KERNEL) $(VM_TESTS)

demo: deps all
	bench/demo

# ---- install ----
# ccload carries every BPF object it loads (skeletons), so it is the one
# file an operator needs; tcpxfer and wlgen are the test network's load
# generators, for a testbed of real hosts; the bpftrace scripts watch the
# algorithms live.  PREFIX=/usr for a package, DESTDIR to stage.
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/ccsuite
COMPDIR    ?= $(DATADIR)/bash-completion/completions
UNITDIR    ?= $(PREFIX)/lib/systemd/system
INSTALL    ?= install
UNITS      := $(notdir $(wildcard loader/service/*.service loader/service/*.timer))
INST_FILES := $(SBINDIR)/ccload $(BINDIR)/tcpxfer $(BINDIR)/wlgen \
	      $(MANDIR)/man8/ccload.8 $(COMPDIR)/ccload $(addprefix $(UNITDIR)/,$(UNITS)) \
	      $(patsubst bench/trace/%,$(DATADIR)/ccsuite/bpftrace/%,$(wildcard bench/trace/*.bt)) \
	      $(DOCDIR)/README.md $(patsubst docs/%,$(DOCDIR)/docs/%,$(wildcard docs/*.md))

install: $(BUILD)/ccload $(BUILD)/tcpxfer $(BUILD)/wlgen man
	$(INSTALL) -D -m 0755 $(BUILD)/ccload $(DESTDIR)$(SBINDIR)/ccload
	$(INSTALL) -D -m 0755 $(BUILD)/tcpxfer $(DESTDIR)$(BINDIR)/tcpxfer
	$(INSTALL) -D -m 0755 $(BUILD)/wlgen $(DESTDIR)$(BINDIR)/wlgen
	$(INSTALL) -D -m 0644 $(BUILD)/ccload.8 $(DESTDIR)$(MANDIR)/man8/ccload.8
	$(INSTALL) -D -m 0644 $(BUILD)/ccload.bash-completion $(DESTDIR)$(COMPDIR)/ccload
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/ccsuite/bpftrace $(DESTDIR)$(DOCDIR)/docs
	$(INSTALL) -m 0755 bench/trace/*.bt $(DESTDIR)$(DATADIR)/ccsuite/bpftrace/
	$(INSTALL) -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	for u in $(UNITS); do \
		sed 's|/usr/sbin/ccload|$(SBINDIR)/ccload|g' loader/service/$$u >$(DESTDIR)$(UNITDIR)/$$u || exit 1; \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u; \
	done
	@# /etc/ccsuite/ccsuite.conf (what ccload service reads, whatever PREFIX):
	@# the operator's, installed only where there is none
	[ -e $(DESTDIR)/etc/ccsuite/ccsuite.conf ] || \
		$(INSTALL) -D -m 0644 loader/service/ccsuite.conf $(DESTDIR)/etc/ccsuite/ccsuite.conf

# (the config in /etc/ccsuite stays: the operator's; enabled units are
# disabled first: systemctl disable ccsuite)
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	-rmdir $(DESTDIR)$(DATADIR)/ccsuite/bpftrace $(DESTDIR)$(DATADIR)/ccsuite \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null

# The instrument's own benchmarks (bench/README.md), from a fresh machine.
bench-accuracy: deps all
	bench/run accuracy

bench-cpucost: deps all
	bench/run cpucost

clean:
	rm -rf $(BUILD)
