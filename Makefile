# SPDX-License-Identifier: GPL-2.0
# ntprof: build, test and install.  Every artifact goes under build/.
#
#   make              ntprof, its BPF skeletons and the man pages
#   make deps         install the Debian packages the build and tests need
#   make check        unit + integration tests (no root, no kernel needed)
#   make check-layers lib/'s folders and the direction of its includes (part of check)
#   make check-asan   unit + integration tests on an ASan + UBSan build (build-asan/)
#   make check-fuzz   the readers' fuzzer (libFuzzer, build-fuzz/) over its corpus; fuzz-run mutates
#   make check-bpf    BPF tests on a loop device (root)
#   make deb          the Debian package, in build/deb/ (dpkg-buildpackage)
#   make check-package  the package: lintian, and installed in a fresh Debian root (root)
#   make check-testbed  the NVMe-oF test bed tests (root, QEMU)
#   make test         all of the above: what CI runs
#   make install      ntprof, man pages, bash and zsh completion (PREFIX=/usr/local, DESTDIR); uninstall
#   make demo         boot the test bed and show ntprof on loopback NVMe/TCP (DEMO_TRANSPORT=rdma: NVMe/RDMA)
#   V=1               show the commands
#   TEST_JOBS=N, TB_JOBS=N  pytest workers of the integration tests (default: the CPUs) and of
#                     the test bed (one guest a CPU, at most 4; 1: one guest after another)

OUT       := build
ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CC        ?= gcc
CLANG     ?= clang
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
RST2MAN   ?= rst2man
PYTHON    ?= /usr/bin/python3
# where make install puts things (DESTDIR before each: a staging root)
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# zsh reads /usr/share/zsh/vendor-completions (Debian's packages) and
# /usr/local/share/zsh/site-functions (its default fpath) without being told
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# monitor's Grafana dashboard and Prometheus recording rules (contrib/)
DATADIR   ?= $(PREFIX)/share/ntprof
MONITOR_CONTRIB := grafana/ntprof.json prometheus/ntprof-rules.yml

# the release version (semantic): the file VERSION is its one source, read here
# and by the Debian package (debian/rules).  GIT_DESCRIBE is what git describe
# says of a checkout, shown beside it; empty outside a checkout (a source
# tarball, the Debian package's build tree, which gets it from make deb).
VERSION      := $(shell cat VERSION)
ifeq ($(origin GIT_DESCRIBE),undefined)
GIT_DESCRIBE := $(shell test -e .git && git describe --tags --always --long --dirty 2>/dev/null)
endif
ifeq ($(shell echo '$(VERSION)' | grep -Ex '[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?'),)
$(error VERSION: '$(VERSION)' is not a semantic version such as 1.2.3)
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow \
             -D_GNU_SOURCE -I. -I$(OUT) -MMD -MP
LDLIBS    := -lbpf -lelf -lz -lsqlite3 -lcurl -lpthread -lm
# extra compile and link flags: make check-asan sets the sanitizers here
SAN       ?=
CFLAGS    += $(SAN)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# The system include dirs clang needs for BPF (asm/types.h etc.), as libbpf-tools do.
CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -I. $(CLANG_BPF_SYS_INCLUDES) \
              -Wall -Werror -Wno-unused-function -MMD -MP

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
LIB_SRCS  := $(wildcard lib/*/*.c)
LIB_OBJS  := $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS)) $(OUT)/lib/ntp/db_schema.o $(OUT)/lib/cli/version.o
CMD_SRCS  := $(wildcard cmd/*.c)
CMD_OBJS  := $(patsubst %.c,$(OUT)/%.o,$(CMD_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(OUT)/bench/%,$(BENCH_SRCS))
MAN_SRCS  := $(wildcard Documentation/*.rst)
# each page's section is its own ":Manual section:" field (1 commands, 5 the file, 7 the design)
man_section = $(shell sed -n 's/^:Manual section: *//p' $(1))
MANS      := $(foreach f,$(MAN_SRCS),$(OUT)/man/$(basename $(notdir $(f))).$(call man_section,$(f)))

.DELETE_ON_ERROR:
# keep the BPF objects and skeletons: they are intermediates of pattern chains
.SECONDARY: $(BPF_OBJS) $(SKELS)
.PHONY: all deps check check-unit check-integration check-layers check-asan check-bpf check-testbed test test-long demo \
        check-package \
        fuzz check-fuzz fuzz-run \
        bench install uninstall clean depcheck man completion deb

all: depcheck $(OUT)/ntprof man completion

# ---- dependency checks: name the Debian package that is missing ---------------
DEBIAN_BUILD_DEPS := make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
                     libsqlite3-dev sqlite3 libcurl4-openssl-dev pkg-config python3-docutils
DEBIAN_TEST_DEPS  := libcmocka-dev python3-pytest python3-pytest-xdist python3-jsonschema python3-yaml protobuf-compiler \
		     python3-protobuf \
		     libclang-rt-14-dev chromium fonts-dejavu-core shellcheck \
		     debhelper lintian mmdebstrap clickhouse-server clickhouse-client openssl systemd \
		     tmux zsh prometheus
depcheck:
	@command -v $(CLANG) >/dev/null || { echo "error: clang not found: apt-get install clang (or: make deps)"; exit 1; }
	@test -x "$(BPFTOOL)" || { echo "error: bpftool not found: apt-get install bpftool (or: make deps)"; exit 1; }
	@pkg-config --exists libbpf || { echo "error: libbpf not found: apt-get install libbpf-dev (or: make deps)"; exit 1; }
	@pkg-config --exists sqlite3 || { echo "error: sqlite3 not found: apt-get install libsqlite3-dev (or: make deps)"; exit 1; }
	@pkg-config --exists libcurl || { echo "error: libcurl not found: apt-get install libcurl4-openssl-dev (or: make deps)"; exit 1; }
	@command -v $(RST2MAN) >/dev/null || { echo "error: rst2man not found: apt-get install python3-docutils (or: make deps)"; exit 1; }

deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$(DEBIAN_BUILD_DEPS) $(DEBIAN_TEST_DEPS) >/dev/null
	@echo "deps: build and test packages installed (the test bed installs its own: tests/testbed/setup.sh)"

# ---- BPF ------------------------------------------------------------------------
$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c bpf/vmlinux.h | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ntp_$(subst -,_,$*) > $@

# `make GEN_VMLINUX_H=1 build/vmlinux-full.h`: the full header of this machine's
# kernel, for development; the checked-in bpf/vmlinux.h stays minimal.
$(OUT)/vmlinux-full.h: | $(OUT)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

# ---- user space ---------------------------------------------------------------
# the generated halves of lib/ntp/db_schema.h and lib/cli/version.h
$(OUT)/lib/ntp/db_schema.c: schema/ntp.sql
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated from schema/ntp.sql */'; \
	      echo 'const char ntp_schema_sql[] ='; \
	      sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	      echo ';'; } > $@

$(OUT)/lib/cli/version.c: FORCE
	@mkdir -p $(dir $@)
	$(Q){ echo '/* generated from VERSION and git describe */'; \
	      echo 'const char ntp_version_string[] = "$(VERSION)";'; \
	      echo 'const char ntp_version_git[] = "$(GIT_DESCRIBE)";'; } > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(OUT)/%.o: %.c | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OUT)/%.o: $(OUT)/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OUT)/libntprof.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUT)/ntprof: $(CMD_OBJS) $(OUT)/libntprof.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- man pages -----------------------------------------------------------------
man: $(MANS)
$(OUT)/man/%.1: Documentation/%.rst | $(OUT)/man
	$(call msg,MAN,$@)
	$(Q)$(RST2MAN) --halt=warning $< $@
$(OUT)/man/%.5: Documentation/%.rst | $(OUT)/man
	$(call msg,MAN,$@)
	$(Q)$(RST2MAN) --halt=warning $< $@
$(OUT)/man/%.7: Documentation/%.rst | $(OUT)/man
	$(call msg,MAN,$@)
	$(Q)$(RST2MAN) --halt=warning $< $@

# ---- shell completion ------------------------------------------------------------
# contrib/completion/ntprof.bash's functions, then the option tables the built
# binary prints from its own (so the build runs it: no cross-building)
COMPLETION := $(OUT)/completion/ntprof.bash
ZSH_COMPLETION := $(OUT)/completion/_ntprof
completion: $(COMPLETION) $(ZSH_COMPLETION)
$(COMPLETION): contrib/completion/ntprof.bash $(OUT)/ntprof
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)
	$(Q){ cat $<; $(OUT)/ntprof help --completion-tables bash; } > $@.tmp && mv $@.tmp $@
# zsh's: an autoloaded function's body, which ends by calling the function that completes
$(ZSH_COMPLETION): contrib/completion/ntprof.zsh $(OUT)/ntprof
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)
	$(Q){ cat $<; $(OUT)/ntprof help --completion-tables zsh; echo '_ntprof_zsh "$$@"'; } \
		> $@.tmp && mv $@.tmp $@

# ---- the Debian package -----------------------------------------------------------
# dpkg-buildpackage -b on a copy of the tree (its files as they are now) in
# build/deb/ntprof-VERSION/, so that debhelper's clean and build touch
# nothing here; the .deb, .changes and .buildinfo go to build/deb/.  The copy
# is no checkout: GIT_DESCRIBE is handed to its make.
DEB_DIR := $(OUT)/deb
DEB_SRC := $(DEB_DIR)/ntprof-$(VERSION)
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	if [ -e .git ]; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null --no-recursion -T - -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar --exclude='./build*' -cf - . | tar -xf - -C $(DEB_SRC); \
	fi
	cd $(DEB_SRC) && GIT_DESCRIBE='$(GIT_DESCRIBE)' dpkg-buildpackage -us -uc -b -J
	rm -rf $(DEB_SRC)
	@ls -1 $(DEB_DIR)

# ---- tests ----------------------------------------------------------------------
$(OUT)/tests/%: tests/unit/%.c $(OUT)/libntprof.a
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(OUT)/libntprof.a $(LDLIBS) -lcmocka -o $@

$(OUT)/bench/%: bench/%.c $(OUT)/libntprof.a
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(OUT)/libntprof.a $(LDLIBS) -o $@

# benchmarks print figures; they assert nothing about time (bench/README.md)
bench: $(OUT)/ntprof $(BENCH_BINS)
	bench/run.sh $(OUT)

check-unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

# pytest's workers (pytest-xdist): the integration tests on every CPU, the
# test bed's guests one a CPU (each is a single-threaded TCG QEMU), at most 4
# at a time (TB_JOBS=1: one guest after another)
TEST_JOBS ?= $(shell nproc)
TB_JOBS   ?= $(shell n=$$(nproc); echo $$((n < 4 ? n : 4)))

check-integration: $(OUT)/ntprof $(COMPLETION) $(ZSH_COMPLETION)
	NTPROF=$(abspath $(OUT)/ntprof) $(PYTHON) -m pytest -ra -n $(TEST_JOBS) \
		$(if $(TEST_MARK),-m "$(TEST_MARK)") tests/integration

# the layer order of lib/ is the table at the top of tests/integration/test_layers.py
check-layers:
	$(PYTHON) -m pytest -q tests/integration/test_layers.py

check: check-unit check-integration

# libFuzzer over the readers (tests/fuzz/fuzz_readers.c), built with clang and
# the sanitizers in build-fuzz/.  check-fuzz replays the corpus that longer
# runs found (tests/fuzz/corpus, minimized), the faults once found
# (tests/fuzz/regress) and the seeds: the same inputs every time, so CI
# cannot fail on a new mutation.  fuzz-run mutates for FUZZ_TIME seconds
# (by hand; keep what it finds with -merge=1 into tests/fuzz/corpus).
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer -Wno-missing-field-initializers
FUZZ_TIME  ?= 600
FUZZ_DIRS  := tests/fuzz/corpus tests/fuzz/regress build-fuzz/seeds
fuzz:
	$(MAKE) OUT=build-fuzz CC=$(CLANG) SAN="$(FUZZ_FLAGS)" build-fuzz/fuzz/fuzz_readers build-fuzz/seeds/.done

check-fuzz: fuzz
	build-fuzz/fuzz/fuzz_readers -runs=0 -timeout=20 -rss_limit_mb=1500 $(FUZZ_DIRS)

fuzz-run: fuzz
	mkdir -p build-fuzz/corpus
	build-fuzz/fuzz/fuzz_readers -max_total_time=$(FUZZ_TIME) -timeout=20 -rss_limit_mb=2000 \
		-artifact_prefix=build-fuzz/ -print_final_stats=1 build-fuzz/corpus $(FUZZ_DIRS)

$(OUT)/fuzz/%: tests/fuzz/%.c $(OUT)/libntprof.a
	@mkdir -p $(dir $@)
	$(call msg,FUZZ,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer $< $(OUT)/libntprof.a $(LDLIBS) -o $@

$(OUT)/seeds/.done: tests/fuzz/make_seeds.py tests/integration/ntpgen.py schema/ntp.sql
	$(Q)$(PYTHON) tests/fuzz/make_seeds.py $(dir $@)
	@touch $@

# the same tests on a build with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer, in build-asan/: any report fails the test.  Tests
# marked plain_only (fleet cases whose C code other cases run) are left out.
check-asan:
	$(MAKE) OUT=build-asan SAN="$(SAN_FLAGS)" TEST_MARK="not plain_only" check-unit check-integration

# the package (make deb): lintian, make install against it, and installed into a
# fresh Debian root (mmdebstrap; cached in /var/tmp/ntprof-pkgtest) where ntprof
# runs: root and the network (tests/package/conftest.py)
check-package: deb all
	NTPROF_DEB_DIR=$(abspath $(DEB_DIR)) $(PYTHON) -m pytest -ra --durations=0 tests/package

check-bpf: $(OUT)/ntprof
	NTPROF=$(abspath $(OUT)/ntprof) $(PYTHON) -m pytest -ra -m bpf tests/bpf

check-testbed: $(OUT)/ntprof
	NTPROF=$(abspath $(OUT)/ntprof) $(PYTHON) -m pytest -ra -n $(TB_JOBS) --durations=0 tests/testbed

test: check check-package check-asan check-fuzz check-bpf check-testbed

# by hand, not in CI (wave rules): the test bed's whole suite on every kernel, and
# the soaks (@pytest.mark.long: tests/testbed/test_soak.py)
test-long: $(OUT)/ntprof
	NTPROF_TB_LONG=1 NTPROF_TB_FULL="6.1 6.12 7.3" NTPROF=$(abspath $(OUT)/ntprof) $(PYTHON) -m pytest -ra \
		-n $(TB_JOBS) --durations=0 tests/testbed

demo: all
	NTPROF=$(abspath $(OUT)/ntprof) tests/testbed/demo.sh

# systemd units, when the tree has some (contrib/systemd/): installed with @BINDIR@
# made the binary's directory, never enabled
UNITS := $(wildcard contrib/systemd/*.service contrib/systemd/*.socket contrib/systemd/*.timer)

install: all
	install -D -m 0755 $(OUT)/ntprof $(DESTDIR)$(BINDIR)/ntprof
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	install -m 0644 $(filter %.1,$(MANS)) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(filter %.5,$(MANS)) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(filter %.7,$(MANS)) $(DESTDIR)$(MANDIR)/man7/
	install -D -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/ntprof
	install -D -m 0644 $(ZSH_COMPLETION) $(DESTDIR)$(ZSHCOMPDIR)/_ntprof
	for f in $(MONITOR_CONTRIB); do install -D -m 0644 contrib/$$f $(DESTDIR)$(DATADIR)/$$f || exit 1; done
ifneq ($(UNITS),)
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	for u in $(UNITS); do \
		sed 's|@BINDIR@|$(BINDIR)|g' $$u > $(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$u) && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$u) || exit 1; \
	done
endif

# what install put there, and nothing else (the directories stay: others share them)
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ntprof $(DESTDIR)$(BASHCOMPDIR)/ntprof $(DESTDIR)$(ZSHCOMPDIR)/_ntprof \
		$(foreach m,$(MANS),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS))) \
		$(addprefix $(DESTDIR)$(DATADIR)/,$(MONITOR_CONTRIB))

$(OUT) $(OUT)/bpf $(OUT)/man:
	@mkdir -p $@

clean:
	rm -rf $(OUT) build-asan build-fuzz

FORCE:

-include $(wildcard $(OUT)/*.d $(OUT)/*/*.d $(OUT)/*/*/*.d)
