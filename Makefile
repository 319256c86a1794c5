# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One Makefile for the tool, its BPF objects, workloads and tests.
# Everything generated lands in $(OUTPUT); `make clean` removes it.
#
#   make                  the tool, the workloads, the benchmarks' floor
#   make unit-tests       the cmocka tests and the tool, under ASan/UBSan
#   make check            every test tier (installs Debian packages first)
#   make test T=NAME      one test, built and run, no packages installed:
#                         a unit test (test_ctable), a host or VM script
#                         (t0035-lost, t0035, lost; host/t0010 or vm/t0010
#                         where both tiers have the name), or fixtures
#   make check-fixtures   the fixtures tier alone
#   make V=1              show the commands
#
# Every compiler run writes the headers its object includes to
# $(OUTPUT)/.deps/<target>.d (-MMD), and those are the object's
# dependencies: a new file in a new lib/ directory is built and its
# headers tracked with no list to edit.

OUTPUT ?= build
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
VERSION := 0.1.0

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')
ifeq ($(filter x86 arm64 powerpc s390 riscv,$(ARCH)),)
$(error lockstat: unsupported architecture $(shell uname -m))
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -DLOCKSTAT_VERSION='"$(VERSION)"' \
	-I$(OUTPUT)/skel -Ilib -Ibpf $(CFLAGS)
LDLIBS := -lbpf -ldw -lelf -lz -lstdc++ -lm
LDLIBS += $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
# serve's HTTP: contrib/check-deps.sh says what to install when it is missing.
LDLIBS += $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd) -lpthread
ifeq ($(STATIC),1)
LDFLAGS += -static
LDLIBS += -lzstd
endif
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The dependency file of target $(1); -MP names every header as a target
# of its own, so a header that goes away does not stop the build.
depfile = $(OUTPUT)/.deps/$(patsubst $(OUTPUT)/%,%,$(1)).d
DEPFLAGS = -MMD -MP -MT $@ -MF $(call depfile,$@)
mkdirs = mkdir -p $(@D) $(dir $(call depfile,$@))

# clang -target bpf does not search the host's multiarch include dirs.
CLANG_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 | \
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-parameter \
	-Ibpf/vmlinux -Ibpf -Ilib $(CLANG_SYS_INCLUDES)

# Every bpf/<name>.bpf.c becomes <name>.skel.h.
BPF_FAMILIES := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
BPF_OBJS := $(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(BPF_FAMILIES))
SKELS := $(patsubst %,$(OUTPUT)/skel/%.skel.h,$(BPF_FAMILIES))

LIB_SRCS := $(wildcard lib/*/*.c)
TOOL_SRCS := $(wildcard tool/*.c)
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
TOOL_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(TOOL_SRCS))
# lib files that need no skeleton and no root: the unit-tested core
CORE_SRCS := $(filter-out lib/run/%.c lib/serve/serve_%.c lib/record/collector.c lib/record/collect_%.c lib/record/kfeatures.c lib/record/lockname.c,$(LIB_SRCS))
ASAN_CORE_OBJS := $(patsubst %.c,$(OUTPUT)/asan/%.o,$(CORE_SRCS))
# The whole tool under ASan/UBSan: report, fsck and friends need no root,
# so the unit tier runs them on the fixtures in tests/data.
ASAN_TOOL_OBJS := $(patsubst %.c,$(OUTPUT)/asan/%.o,$(LIB_SRCS) $(TOOL_SRCS))
FUZZ_OBJS := $(patsubst %.c,$(OUTPUT)/fuzz/%.o,tests/fuzz/fuzz_profile.c $(CORE_SRCS))
FUZZ_SECONDS ?= 30

WORKLOADS := $(patsubst contrib/workloads/%.c,$(OUTPUT)/workloads/%,$(wildcard contrib/workloads/*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
BENCH := $(OUTPUT)/bench/floor $(OUTPUT)/bench/floor.bpf.o $(OUTPUT)/bench/floor_clock.bpf.o

# Every target built from C, and the headers each one read when it was
# last built. One that has no .d (never built, or built before the .d
# files existed) is rebuilt, once: nothing says which headers it read.
DEP_TARGETS := $(BPF_OBJS) $(LIB_OBJS) $(TOOL_OBJS) $(ASAN_TOOL_OBJS) $(FUZZ_OBJS) \
	$(WORKLOADS) $(UNIT_TESTS) $(BENCH)
DEP_FILES := $(foreach t,$(DEP_TARGETS),$(call depfile,$(t)))
DEP_HAVE := $(wildcard $(DEP_FILES))
-include $(DEP_HAVE)
$(patsubst $(OUTPUT)/.deps/%.d,$(OUTPUT)/%,$(filter-out $(DEP_HAVE),$(DEP_FILES))): FORCE
FORCE:

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: FORCE all clean check check-unit check-fixtures check-host check-vm demo deps workloads unit-tests fuzz test

all: $(OUTPUT)/lockstat workloads $(BENCH)

workloads: $(WORKLOADS)

$(OUTPUT)/.deps-ok:
	$(Q)contrib/check-deps.sh
	$(Q)mkdir -p $(@D) && touch $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)/.deps-ok
	$(call msg,BPF,$@)
	$(Q)$(mkdirs)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUTPUT)/skel/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# The skeletons are made before any C file is compiled (a first build
# has no .d to say who includes them); after that each object depends on
# the skeletons its .d names.
$(OUTPUT)/lib/%.o: lib/%.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(mkdirs)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/tool/%.o: tool/%.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(mkdirs)
	$(Q)$(CC) $(ALL_CFLAGS) -Itool $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/lockstat: $(LIB_OBJS) $(TOOL_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUTPUT)/workloads/%: contrib/workloads/%.c
	$(call msg,CC,$@)
	$(Q)$(mkdirs)
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -g -fno-omit-frame-pointer -pthread $(DEPFLAGS) $(LDFLAGS) -o $@ $<

# contrib/bench/overhead's floors: empty programs on the lock tracepoints,
# and programs that only read the clock.
$(OUTPUT)/bench/%.bpf.o: contrib/bench/%.bpf.c | $(OUTPUT)/.deps-ok
	$(call msg,BPF,$@)
	$(Q)$(mkdirs)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/bench/floor: contrib/bench/floor.c | $(OUTPUT)/.deps-ok
	$(call msg,CC,$@)
	$(Q)$(mkdirs)
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -g -Ilib $(DEPFLAGS) $(LDFLAGS) -o $@ $< -lbpf -lelf -lz $(if $(filter 1,$(STATIC)),-lzstd)

$(OUTPUT)/asan/%.o: %.c | $(SKELS)
	$(call msg,CC-SAN,$@)
	$(Q)$(mkdirs)
	$(Q)$(CC) $(ALL_CFLAGS) -Itool $(SAN) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/asan/lockstat: $(ASAN_TOOL_OBJS)
	$(call msg,LINK-SAN,$@)
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS)

# libFuzzer on the profile reader: the core compiled with clang's
# coverage (-fsanitize=fuzzer-no-link), linked with libFuzzer's main.
FUZZ_SAN := address,undefined
$(OUTPUT)/fuzz/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	$(Q)$(mkdirs)
	$(Q)$(CLANG) -std=gnu11 $(WARN) -D_GNU_SOURCE -Ilib -Ibpf -g -O1 \
		-fsanitize=fuzzer-no-link,$(FUZZ_SAN) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/fuzz/fuzz_profile: $(FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ -lm $(LDLIBS)

$(OUTPUT)/tests/%: tests/unit/%.c $(ASAN_CORE_OBJS)
	$(call msg,CC-TEST,$@)
	$(Q)$(mkdirs)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN) -Itests/unit -DLOCKSTAT_TEST_DATA='"$(CURDIR)/tests/data"' \
		$(DEPFLAGS) -o $@ $< $(ASAN_CORE_OBJS) -lcmocka -lm $(LDLIBS)

unit-tests: $(UNIT_TESTS) $(OUTPUT)/asan/lockstat

fuzz: $(OUTPUT)/fuzz/fuzz_profile
	$(Q)tests/run-fuzz.sh $(OUTPUT)/fuzz/fuzz_profile $(FUZZ_SECONDS)

check-unit: unit-tests
	$(Q)tests/run-unit.sh $(UNIT_TESTS)

# The fixtures tier alone (no root): the ASan build on tests/data.
check-fixtures: $(OUTPUT)/asan/lockstat workloads
	$(Q)ASAN_LOCKSTAT=$(abspath $(OUTPUT))/asan/lockstat WORKLOADS=$(abspath $(OUTPUT))/workloads \
		tests/run-fixtures.sh

check-host: all
	$(Q)tests/run-host.sh

# One test by name (tests/run-test.sh says which names): builds what it
# needs and runs it through its tier's runner, installing nothing.
test:
	$(Q)MAKE='$(MAKE)' OUTPUT='$(OUTPUT)' tests/run-test.sh '$(T)'

# Debian's cloud kernel (kprobes, fentry, BTF) under QEMU/TCG, from an
# initramfs with the tool, the workloads and tests/vm/t*.sh.
check-vm: $(OUTPUT)/lockstat workloads
	$(Q)LOCKSTAT_BUILD=$(OUTPUT) tests/vm/run-vm.sh

# Every tier this machine can run; a tier that cannot run says why.
# Both entry points install the missing Debian packages first. A fuzzer
# that fails to build is removed, not left stale: the fuzz tier then fails
# where clang can build fuzzers, and is skipped, by name, where it cannot.
# LOCKSTAT_CI_EXPECT=FILE (.ci/run) fails the run when a tier or a
# prerequisite FILE lists was skipped.
check:
	$(Q)contrib/install-deps.sh --tests
	$(Q)$(MAKE) --no-print-directory all unit-tests
	$(Q)$(MAKE) --no-print-directory $(OUTPUT)/fuzz/fuzz_profile || rm -f $(OUTPUT)/fuzz/fuzz_profile
	$(Q)FUZZ_BIN=$(OUTPUT)/fuzz/fuzz_profile FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-all.sh

deps:
	$(Q)contrib/install-deps.sh --tests

demo:
	$(Q)contrib/install-deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)contrib/demo.sh

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)
