# graveyard - build, test, sanitize, fuzz, bench.
#
#   make                      build/graveyard
#   make check                build and run every test
#   make DEV=1 check          the same with -Werror
#   make SANITIZE=address,undefined check
#                             every test under ASan+UBSan (own build folder)
#   make fuzz                 libFuzzer: extractor, row reader, scanner vs
#                             jansson, SSE parser, safetensors and GGUF
#                             table readers, regular expressions, the
#                             bundle's tar.gz reader, the tool-call checker
#   make bfcl-fixture BFCL=DIR  BFCL's own verdicts on the tool-call cases,
#                             from a gorilla checkout (tests/tools)
#   make pyre-diff            the regular expressions against Python's re
#                             on PYRE_CASES random cases (PYRE_SEED)
#   make pcre2-diff           the same cases, the real texts and the rules
#                             with PCRE2 in pyre's place (libpcre2-dev)
#   make bench                1,000,000 rows graded, and a 2,000-question
#                             rung run, each against plain Python; f16-range
#                             on 1 GiB of BF16 against numpy; the page's size
#                             and time to interactive in headless chromium
#   make bench-probs          a report of 10 x 1,319 answers with probs
#                             files (logprobs 8) against one without
#   make deps                 install Debian 12's packages (as root)
#   make demo                 run and bury the demo ladder on the fake server
#   make install              build/graveyard to $(PREFIX)/bin (DESTDIR too)
#
# Third-party libraries come from pkg-config. The grader (libgrader.a)
# links with libc and libm only, and its regular expressions (libpyre.a)
# with libc alone: check-grader-deps and check-pyre-deps prove it.

CC       ?= cc
PKG      ?= pkg-config
PYTHON   ?= python3

ifeq ($(SANITIZE),)
BUILD    ?= build
SANFLAGS :=
else
BUILD    ?= build/sanitize
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
endif

WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
ifeq ($(DEV),1)
WARN     += -Werror
endif

BASEFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g $(WARN) $(SANFLAGS)

JANSSON_CFLAGS := $(shell $(PKG) --cflags jansson)
JANSSON_LIBS   := $(shell $(PKG) --libs jansson)
ORCH_CFLAGS    := $(shell $(PKG) --cflags libuv libcurl jansson openssl)
ORCH_LIBS      := $(shell $(PKG) --libs libuv libcurl jansson openssl zlib)
MHD_CFLAGS     := $(shell $(PKG) --cflags libmicrohttpd)
MHD_LIBS       := $(shell $(PKG) --libs libmicrohttpd)
ZLIB_LIBS      := $(shell $(PKG) --libs zlib)
CMOCKA_CFLAGS  := $(shell $(PKG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS    := $(shell $(PKG) --libs cmocka 2>/dev/null)

UTIL_SRC   := $(wildcard util/*.c)
UTIL_OBJ   := $(UTIL_SRC:%.c=$(BUILD)/%.o)
RUNDIR_SRC := $(wildcard rundir/*.c)
RUNDIR_OBJ := $(RUNDIR_SRC:%.c=$(BUILD)/%.o)
WEIGHTS_SRC := $(wildcard weights/*.c)
WEIGHTS_OBJ := $(WEIGHTS_SRC:%.c=$(BUILD)/%.o)
GRADER_SRC := $(wildcard grader/*.c)
GRADER_OBJ := $(GRADER_SRC:%.c=$(BUILD)/%.o)
PYRE_SRC   := $(wildcard pyre/*.c)
PYRE_OBJ   := $(PYRE_SRC:%.c=$(BUILD)/%.o)
HAYSTACK_SRC := $(wildcard haystack/*.c)
HAYSTACK_OBJ := $(HAYSTACK_SRC:%.c=$(BUILD)/%.o)
TOOLCALL_SRC := $(wildcard toolcall/*.c)
TOOLCALL_OBJ := $(TOOLCALL_SRC:%.c=$(BUILD)/%.o)
REPORT_SRC := $(wildcard report/*.c)
REPORT_OBJ := $(REPORT_SRC:%.c=$(BUILD)/%.o) $(BUILD)/report/assets.o
# The orchestrator's rooms (docs/design.md, "Rooms of the orchestrator").
ORCH_SRC   := $(filter-out orchestrator/cmd/main.c,$(wildcard orchestrator/*/*.c))
ORCH_OBJ   := $(ORCH_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ   := $(BUILD)/orchestrator/cmd/main.o
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

LIBUTIL    := $(BUILD)/libutil.a
LIBRUNDIR  := $(BUILD)/librundir.a
LIBWEIGHTS := $(BUILD)/libweights.a
LIBGRADER  := $(BUILD)/libgrader.a
LIBPYRE    := $(BUILD)/libpyre.a
LIBHAYSTACK := $(BUILD)/libhaystack.a
LIBTOOLCALL := $(BUILD)/libtoolcall.a
LIBREPORT  := $(BUILD)/libreport.a
LIBORCH    := $(BUILD)/liborch.a
GRAVEYARD  := $(BUILD)/graveyard
FAKE       := $(BUILD)/fake-llama-server
FAKE_TOOLS := $(BUILD)/fake-llama-quantize $(BUILD)/fake-convert-hf \
              $(BUILD)/fake-gguf
PYRE_DRIVER := $(BUILD)/pyre_driver
RULE_DRIVER := $(BUILD)/rule_driver
HAYSTACK_DRIVER := $(BUILD)/haystack_driver
TOOLCALL_DRIVER := $(BUILD)/toolcall_driver

.PHONY: all check check-all check-build check-tools install uninstall unit golden check-grader-deps check-rundir-deps check-size fuzz \
        bench bench-probs deps demo clean lint valgrind install pyre-diff rule-diff \
        check-commands pcre2-diff check-pyre-deps check-rooms check-circles \
        check-sleep check-edges check-lines check-guards check-formats \
        check-format check-tests-map tests-map check-leftovers \
        check-haystack-deps bench-haystack bench-longctx bfcl-fixture

all: $(GRAVEYARD) $(FAKE) $(FAKE_TOOLS)

# util/: libc only; rundir/: libc, jansson and util, and the grader's
# structs (headers only).
$(BUILD)/util/%.o: util/%.c util/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/rundir/%.o: rundir/%.c rundir/*.h util/*.h grader/*.h pyre/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -c $< -o $@

# weights/: checkpoint and GGUF tables and the F16 counts (f16-range):
# libc and jansson. The counting loops are written for the vectoriser,
# which GCC runs in full at -O3 only: 0.7 GB/s at -O2, 5.6 at -O3.
$(BUILD)/weights/%.o: weights/%.c weights/*.h util/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/weights/f16.o: weights/f16.c weights/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O3 $(CFLAGS) -c $< -o $@

# grader/: libc and libm only (no jansson's headers even); it uses
# pyre/ (the regular expressions, libc only), which uses nothing of it.
$(BUILD)/grader/%.o: grader/%.c grader/*.h pyre/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/pyre/%.o: pyre/%.c pyre/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

# haystack/: the long-context items (docs/longctx.md), libc alone, like
# pyre: the grader and the orchestrator may both link it.
$(BUILD)/haystack/%.o: haystack/%.c haystack/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

# The renderers (report/) need the grader, jansson and (the page's data
# block, gzipped) zlib, nothing more.
$(BUILD)/report/%.o: report/%.c report/*.h grader/*.h pyre/*.h rundir/*.h \
        util/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/orchestrator/%.o: orchestrator/%.c orchestrator/*/*.h grader/*.h \
        pyre/*.h report/*.h rundir/*.h util/*.h weights/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(ORCH_CFLAGS) $(CFLAGS) -c $< -o $@

# toolcall/: tool calls graded as BFCL's AST checker (issue 37), libc
# and jansson alone, so that the grader may link it.
$(BUILD)/toolcall/%.o: toolcall/%.c toolcall/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -c $< -o $@

$(LIBUTIL): $(UTIL_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBRUNDIR): $(RUNDIR_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBWEIGHTS): $(WEIGHTS_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBGRADER): $(GRADER_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBPYRE): $(PYRE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBHAYSTACK): $(HAYSTACK_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBTOOLCALL): $(TOOLCALL_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBREPORT): $(REPORT_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The page's script and style (report/assets/) become C arrays with their
# CSP hashes, written by a tool built for this machine (OpenSSL's SHA-256).
CRYPTO_CFLAGS := $(shell $(PKG) --cflags libcrypto)
CRYPTO_LIBS   := $(shell $(PKG) --libs libcrypto)
$(BUILD)/embed: report/assets/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CRYPTO_CFLAGS) $(CFLAGS) -o $@ $< $(CRYPTO_LIBS)

$(BUILD)/report/assets.c: $(BUILD)/embed report/assets/page.js \
        report/assets/page.css
	@mkdir -p $(dir $@)
	$(BUILD)/embed $@ report/assets/page.js report/assets/page.css

$(BUILD)/report/assets.o: $(BUILD)/report/assets.c report/page.h
	$(CC) $(BASEFLAGS) $(CFLAGS) -Ireport -c $< -o $@

$(LIBORCH): $(ORCH_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(GRAVEYARD): $(MAIN_OBJ) $(LIBORCH) $(LIBREPORT) $(LIBRUNDIR) $(LIBGRADER) \
        $(LIBTOOLCALL) $(LIBPYRE) $(LIBHAYSTACK) $(LIBWEIGHTS) $(LIBUTIL)
	$(CC) $(BASEFLAGS) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBORCH) \
	    $(LIBREPORT) $(LIBRUNDIR) $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(LIBHAYSTACK) \
	    $(LIBWEIGHTS) $(LIBUTIL) \
	    $(ORCH_LIBS) -lm

# The fake llama-server for tests and the demo (tests/fake-llama-server): libmicrohttpd
# serves its streamed responses. asprintf wants _GNU_SOURCE.
$(FAKE): tests/fake-llama-server/fake-llama-server.c \
        tests/fake-llama-server/longctx.c tests/fake-llama-server/longctx.h \
        tests/fake-llama-server/toolcalls.c tests/fake-llama-server/toolcalls.h \
        tests/fake-tools/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -D_GNU_SOURCE $(MHD_CFLAGS) $(JANSSON_CFLAGS) \
	    $(CFLAGS) -o $@ $(filter %.c,$^) $(MHD_LIBS) $(JANSSON_LIBS) -lm

# The fake llama-quantize and converter (tests/fake-tools): jansson only.
$(BUILD)/fake-llama-quantize: tests/fake-tools/fake-quantize.c \
        tests/fake-tools/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -D_DEFAULT_SOURCE $(JANSSON_CFLAGS) $(CFLAGS) -o $@ \
	    $< $(JANSSON_LIBS)

# A fake model's script in a GGUF with a vocabulary (tests/fake-tools):
# libc only.
$(BUILD)/fake-gguf: tests/fake-tools/fake-gguf.c tests/fake-tools/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -D_DEFAULT_SOURCE $(CFLAGS) -o $@ $<

$(BUILD)/fake-convert-hf: tests/fake-tools/fake-convert.c tests/fake-tools/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -D_DEFAULT_SOURCE $(JANSSON_CFLAGS) $(CFLAGS) -o $@ \
	    $< $(JANSSON_LIBS) -lm

# Unit tests link the grader (and its pyre) with jansson, cmocka and libm:
# nothing else.
$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/*.h $(LIBGRADER) $(LIBTOOLCALL) \
        $(LIBPYRE)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    -Igrader -Ipyre -o $@ $< $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(JANSSON_LIBS) \
	    $(CMOCKA_LIBS) -lm

# haystack's unit tests (test_haystack_*): libhaystack and cmocka alone.
$(BUILD)/tests/test_haystack_%: tests/unit/test_haystack_%.c tests/unit/*.h \
        $(LIBHAYSTACK)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -Ihaystack -o $@ $< \
	    $(LIBHAYSTACK) $(CMOCKA_LIBS)

# toolcall's unit tests (test_toolcall_*): libtoolcall, jansson, cmocka.
$(BUILD)/tests/test_toolcall_%: tests/unit/test_toolcall_%.c tests/unit/*.h \
        $(LIBTOOLCALL)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    -Itoolcall -o $@ $< $(LIBTOOLCALL) $(JANSSON_LIBS) $(CMOCKA_LIBS)

# Renderer unit tests (test_report_*) link report/ and the grader: still
# no libuv, libcurl or OpenSSL.
$(BUILD)/tests/test_report_%: tests/unit/test_report_%.c tests/unit/*.h \
        $(LIBREPORT) $(LIBRUNDIR) $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    -Ireport -Igrader -o $@ $< $(LIBREPORT) $(LIBRUNDIR) $(LIBGRADER) $(LIBTOOLCALL) \
	    $(LIBPYRE) $(LIBUTIL) $(JANSSON_LIBS) $(ZLIB_LIBS) $(CMOCKA_LIBS) -lm

# Run-folder unit tests (test_rundir_*): librundir, util, jansson, cmocka.
$(BUILD)/tests/test_rundir_%: tests/unit/test_rundir_%.c tests/unit/*.h \
        $(LIBRUNDIR) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    -Irundir -Igrader -o $@ $< $(LIBRUNDIR) $(LIBUTIL) \
	    $(JANSSON_LIBS) $(CMOCKA_LIBS) -lm

# Weights unit tests (test_weights_*): libweights, libutil (the one rule
# for shown text), jansson, cmocka.
$(BUILD)/tests/test_weights_%: tests/unit/test_weights_%.c tests/unit/*.h \
        $(LIBWEIGHTS) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    -Iweights -o $@ $< $(LIBWEIGHTS) $(LIBUTIL) $(JANSSON_LIBS) \
	    $(CMOCKA_LIBS) -lm

# Orchestrator unit tests (test_ROOM_* of its rooms, and the two of
# another room that drive it too) link its modules and their libraries;
# an explicit rule, so make picks it over the patterns above.
ORCH_ROOMS := base cmd figures forge input night rows run sandbox server
ORCH_UNIT_BIN := $(filter $(foreach r,$(ORCH_ROOMS),$(BUILD)/tests/test_$(r)_%), \
        $(UNIT_BIN)) $(BUILD)/tests/test_rundir_store $(BUILD)/tests/test_util_buf
$(ORCH_UNIT_BIN): $(BUILD)/tests/%: tests/unit/%.c tests/unit/*.h \
        $(LIBORCH) $(LIBREPORT) $(LIBRUNDIR) $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) \
        $(LIBHAYSTACK) $(LIBWEIGHTS) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(ORCH_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) \
	    -Irundir -Igrader -o $@ $< $(LIBORCH) $(LIBREPORT) \
	    $(LIBRUNDIR) $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(LIBHAYSTACK) $(LIBWEIGHTS) \
	    $(LIBUTIL) $(ORCH_LIBS) $(CMOCKA_LIBS) -lm

# make check: the tools it needs named first (scripts/check-tools.sh:
# `sh scripts/deps.sh --test` installs them), then everything at once.
check: check-tools
	@$(MAKE) --no-print-directory check-all

check-tools:
	@sh scripts/check-tools.sh

# everything the tests run, built and nothing run
check-build: $(GRAVEYARD) $(FAKE) $(FAKE_TOOLS) $(UNIT_BIN) $(PYRE_DRIVER) \
        $(RULE_DRIVER) $(HAYSTACK_DRIVER) $(TOOLCALL_DRIVER)

check-all: check-build check-grader-deps check-pyre-deps check-rundir-deps \
        check-haystack-deps \
        check-size check-lines \
        check-commands check-rooms check-circles check-edges check-sleep \
        check-formats check-format check-tests-map check-leftovers
	@BUILD=$(BUILD) GUARDS_CC="$(CC) $(BASEFLAGS) $(ORCH_CFLAGS)" \
	    bash tests/run-all.sh $(UNIT_BIN)

# The differential test's driver (tests/pyre): the grader, pyre and
# jansson.
$(PYRE_DRIVER): tests/pyre/pyre_driver.c $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -Igrader -o $@ $< \
	    $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(JANSSON_LIBS) -lm

# make check runs 3,000 cases with seed 1 (tests/run-all.sh); this, more.
PYRE_CASES ?= 200000
PYRE_SEED  ?= 1
pyre-diff: $(PYRE_DRIVER)
	$(PYTHON) tests/pyre/diff.py --driver $(PYRE_DRIVER) \
	    --cases $(PYRE_CASES) --seed $(PYRE_SEED)

# lm-eval's rules against a Python transcription of its filter code
# (tests/tasks/rule_diff.py): make check runs 3,000 cases; this, more,
# with a new seed each time
RULE_CASES ?= 100000
$(RULE_DRIVER): tests/tasks/rule_driver.c $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -o $@ $< $(LIBGRADER) $(LIBTOOLCALL) \
	    $(LIBPYRE) $(JANSSON_LIBS) -lm
# tests/tasks/haystack_port.py's driver: libhaystack and jansson
$(HAYSTACK_DRIVER): tests/tasks/haystack_driver.c $(LIBHAYSTACK)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -o $@ $< $(LIBHAYSTACK) \
	    $(JANSSON_LIBS)
# tests/tools/bfcl_diff.py's driver (BFCL's verdicts against
# toolcall's): libtoolcall and jansson
$(TOOLCALL_DRIVER): tests/tools/toolcall_driver.c $(LIBTOOLCALL)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -Itoolcall -o $@ $< \
	    $(LIBTOOLCALL) $(JANSSON_LIBS)
# BFCL's own verdicts on tests/tools/bfcl_cases.jsonl, written again from
# a checkout of gorilla (BFCL=path/to/gorilla; not part of make check,
# which compares against the committed tests/tools/bfcl_verdicts.json)
bfcl-fixture:
	$(PYTHON) tests/tools/bfcl_fixture.py $(BFCL)
rule-diff: $(RULE_DRIVER)
	$(PYTHON) tests/tasks/rule_diff.py $(RULE_DRIVER) \
	    --cases $(RULE_CASES) --seed $$(date +%s)

# PCRE2 in pyre's place, measured (docs/grading.md, "PCRE2 against pyre,
# measured"): the same two drivers linked with tests/pyre/pcre2's pyre.h
# on PCRE2 instead of pyre's compiler and matcher (pyre's own files built
# under other names, str.lower() kept), then both against CPython on the
# same cases. Needs libpcre2-dev; not part of make check.
PCRE2_BUILD := $(BUILD)/pcre2
PCRE2_CFLAGS = $(shell $(PKG) --cflags libpcre2-8)
PCRE2_LIBS   = $(shell $(PKG) --libs libpcre2-8)
PCRE2_OBJ    := $(GRADER_OBJ) $(TOOLCALL_OBJ) $(PYRE_SRC:pyre/%.c=$(PCRE2_BUILD)/sre/%.o) \
                $(PCRE2_BUILD)/pyre_pcre2.o
$(PCRE2_BUILD)/sre/%.o: pyre/%.c pyre/*.h tests/pyre/pcre2/rename.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -include tests/pyre/pcre2/rename.h \
	    -c $< -o $@
$(PCRE2_BUILD)/pyre_pcre2.o: tests/pyre/pcre2/pyre_pcre2.c grader/*.h \
        pyre/*.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(PCRE2_CFLAGS) $(CFLAGS) -Igrader -Ipyre -c $< -o $@
$(PCRE2_BUILD)/pyre_driver: tests/pyre/pyre_driver.c $(PCRE2_OBJ)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -Igrader -o $@ $< \
	    $(PCRE2_OBJ) $(PCRE2_LIBS) $(JANSSON_LIBS) -lm
$(PCRE2_BUILD)/rule_driver: tests/tasks/rule_driver.c $(PCRE2_OBJ)
	$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS) $(CFLAGS) -o $@ $< $(PCRE2_OBJ) \
	    $(PCRE2_LIBS) $(JANSSON_LIBS) -lm
# graveyard itself on PCRE2, for tests/bench/rule_bench.py's timing
$(PCRE2_BUILD)/graveyard: $(MAIN_OBJ) $(LIBORCH) $(LIBREPORT) $(LIBRUNDIR) \
        $(PCRE2_OBJ) $(LIBHAYSTACK) $(LIBWEIGHTS) $(LIBUTIL)
	$(CC) $(BASEFLAGS) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBORCH) \
	    $(LIBREPORT) $(LIBRUNDIR) $(PCRE2_OBJ) $(LIBHAYSTACK) $(LIBWEIGHTS) \
	    $(LIBUTIL) $(PCRE2_LIBS) $(ORCH_LIBS) -lm
pcre2-diff: $(PYRE_DRIVER) $(RULE_DRIVER) $(PCRE2_BUILD)/pyre_driver \
        $(PCRE2_BUILD)/rule_driver
	$(PYTHON) tests/pyre/pcre2/measure.py --build $(BUILD) \
	    --cases $(PYRE_CASES) --seed $(PYRE_SEED)

unit: $(UNIT_BIN)
	@BUILD=$(BUILD) bash tests/run-all.sh --unit-only $(UNIT_BIN)

golden: $(GRAVEYARD)
	@sh tests/golden/run.sh $(GRAVEYARD)

# The grader must not need libuv, libcurl or OpenSSL: link a program with
# libgrader.a and only jansson + libm, and look for their symbols.
# The run folder has one owner: librundir.a needs jansson and libc only,
# and no other module spells its paths.
check-rundir-deps: $(LIBRUNDIR) $(LIBUTIL)
	@sh scripts/check-rundir-deps.sh $(LIBRUNDIR) $(LIBUTIL) \
	    "$(CC) $(BASEFLAGS) $(JANSSON_CFLAGS)" "$(JANSSON_LIBS)"

# Commands over a library: none calls another's entry point, none
# redirects stdout (scripts/check-commands.sh).
check-commands: $(LIBORCH)
	@sh scripts/check-commands.sh $(LIBORCH)

# Every part includes only the parts below it: the one table,
# scripts/rooms.table (docs/design.md, scripts/check-rooms.sh).
check-rooms:
	@sh scripts/check-rooms.sh

# Nothing naps in the rooms on the loop: no sleep, usleep or nanosleep
# in orchestrator/run/, server/, night/ (scripts/check-sleep.sh).
check-sleep:
	@sh scripts/check-sleep.sh

# Every call between the parts, read from the symbols (nm) of the seven
# libraries and main.o, is one scripts/rooms.table allows, and every
# outside library a part needs is one of its own (scripts/check-edges.sh).
check-edges: $(LIBUTIL) $(LIBRUNDIR) $(LIBWEIGHTS) $(LIBGRADER) $(LIBPYRE) \
        $(LIBHAYSTACK) $(LIBTOOLCALL) $(LIBREPORT) $(LIBORCH) $(MAIN_OBJ)
	@CC="$(CC)" sh scripts/check-edges.sh $(LIBUTIL) $(LIBRUNDIR) \
	    $(LIBWEIGHTS) $(LIBGRADER) $(LIBPYRE) $(LIBHAYSTACK) $(LIBTOOLCALL) \
	    $(LIBREPORT) $(LIBORCH) $(MAIN_OBJ)

# Every product file (and the fake server and tools) as .clang-format
# lays it out (scripts/check-format.sh; make lint adds cppcheck).
check-format:
	@sh scripts/check-format.sh

# Leftovers of before, each a grep down to zero: a char[4096] path in
# rundir/ or the bundle's stage, pyre's old prefix, a curl option set
# unchecked (scripts/check-leftovers.sh).
check-leftovers:
	@sh scripts/check-leftovers.sh

# No product file over 800 lines but those scripts/lines.exceptions
# names with the reason (scripts/check-lines.sh).
check-lines:
	@sh scripts/check-lines.sh

# The checks above on the breaches they guard, planted in copies of the
# archives and of the sources (tests/guards/run.sh; make check runs it
# as the suite "guards").
check-guards: $(LIBUTIL) $(LIBRUNDIR) $(LIBWEIGHTS) $(LIBGRADER) $(LIBPYRE) $(LIBTOOLCALL) \
        $(LIBHAYSTACK) $(LIBREPORT) $(LIBORCH) $(MAIN_OBJ)
	@sh tests/guards/run.sh $(BUILD) "$(CC) $(BASEFLAGS) $(ORCH_CFLAGS)"

# One owner per run-folder format: no manifest key read or written by
# hand, no .done or ladder.tsv spelt, outside rundir/
# (scripts/check-formats.sh; tests/formats/run.sh, run by make check,
# plants each breach in a scratch tree and sees it refused).
check-formats:
	@sh scripts/check-formats.sh .

# Calls inside the orchestrator run one way: no file calls back into one
# that calls it (scripts/check-circles.sh).
check-circles: $(LIBORCH)
	@sh scripts/check-circles.sh $(LIBORCH)

# Every product module named by a test's `Tests:` line, and
# docs/testing.md's module map what those lines say
# (scripts/check-tests-map.sh); make tests-map writes the map.
check-tests-map:
	@sh scripts/check-tests-map.sh

tests-map:
	@sh scripts/check-tests-map.sh --write

# No function over 80 statements or 150 lines (scripts/check-size.sh).
check-size:
	sh scripts/check-size.sh "$(ORCH_CFLAGS)"

check-grader-deps: $(LIBGRADER) $(LIBPYRE) $(LIBTOOLCALL)
	@sh scripts/check-grader-deps.sh $(LIBGRADER) $(LIBPYRE) \
	    "$(CC) $(BASEFLAGS)" "$(LIBTOOLCALL) $(JANSSON_LIBS) -lm"

# pyre (the regular expressions) under the grader: libc alone, no file,
# no header of the grader's (scripts/check-pyre-deps.sh).
check-pyre-deps: $(LIBPYRE)
	@sh scripts/check-pyre-deps.sh $(LIBPYRE) "$(CC) $(BASEFLAGS)"

# haystack (the long-context items) likewise: libc alone, no file, no
# header but its own (scripts/check-haystack-deps.sh).
check-haystack-deps: $(LIBHAYSTACK)
	@sh scripts/check-haystack-deps.sh $(LIBHAYSTACK) "$(CC) $(BASEFLAGS)"

FUZZ_SECONDS ?= 30
FUZZ_BUILD   := build/fuzz
# a call that no longer fits its prototype is an error here too (the
# fuzzers are built by clang, outside DEV=1's -Werror)
FUZZ_FLAGS   := -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 \
                -Werror=incompatible-pointer-types -Werror=int-conversion \
                -Werror=implicit-function-declaration \
                -fsanitize=fuzzer,address,undefined $(JANSSON_CFLAGS)
# Each source compiled once for all the harnesses that link it (the
# grader's 30 files were compiled six times over: FUZZ_GRADER), then
# each harness linked; make -j builds them side by side.
FUZZ_HDRS := $(wildcard */*.h orchestrator/*/*.h)
fuzz_obj = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(1))
FUZZ_GRADER := $(call fuzz_obj,$(GRADER_SRC) $(TOOLCALL_SRC) $(PYRE_SRC))
# kept: an object made by a pattern rule is otherwise removed as soon as
# the harness that needed it is linked
.PRECIOUS: $(FUZZ_BUILD)/obj/%.o
$(FUZZ_BUILD)/obj/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(FUZZ_INC) -c -o $@ $<
# the page's assets, made in the build folder, include report/page.h
$(call fuzz_obj,$(BUILD)/report/assets.c): FUZZ_INC := -Ireport
$(FUZZ_BUILD)/fuzz_extract: tests/fuzz/fuzz_extract.c $(FUZZ_GRADER)
	clang $(FUZZ_FLAGS) -Igrader -o $@ $^ $(JANSSON_LIBS) -lm
$(FUZZ_BUILD)/fuzz_rows: tests/fuzz/fuzz_rows.c $(FUZZ_GRADER) \
        $(call fuzz_obj,report/emit.c)
	clang $(FUZZ_FLAGS) -Igrader -Ireport -o $@ $^ $(JANSSON_LIBS) -lm
$(FUZZ_BUILD)/fuzz_rowscan: tests/fuzz/fuzz_rowscan.c $(FUZZ_GRADER)
	clang $(FUZZ_FLAGS) -Igrader -o $@ $^ $(JANSSON_LIBS) -lm
$(FUZZ_BUILD)/fuzz_pyre: tests/fuzz/fuzz_pyre.c $(FUZZ_GRADER)
	clang $(FUZZ_FLAGS) -Igrader -Ipyre -o $@ $^ $(JANSSON_LIBS) -lm
$(FUZZ_BUILD)/fuzz_sse: tests/fuzz/fuzz_sse.c $(FUZZ_GRADER) \
        $(call fuzz_obj,orchestrator/server/sse.c orchestrator/server/reply.c \
            util/util.c)
	clang $(FUZZ_FLAGS) -o $@ $^ $(JANSSON_LIBS) -lm
$(FUZZ_BUILD)/fuzz_page: tests/fuzz/fuzz_page.c $(FUZZ_GRADER) \
        $(call fuzz_obj,report/page.c report/doc.c report/doc_md.c \
            report/doc_html.c report/fmt.c $(BUILD)/report/assets.c)
	clang $(FUZZ_FLAGS) -D_GNU_SOURCE -Ireport -Igrader -o $@ $^ \
	    $(JANSSON_LIBS) $(ZLIB_LIBS) -lm
$(FUZZ_BUILD)/fuzz_tar: tests/fuzz/fuzz_tar.c \
        $(call fuzz_obj,orchestrator/base/tarball.c util/util.c \
            util/printable.c)
	clang $(FUZZ_FLAGS) -o $@ $^ $(ZLIB_LIBS)
$(FUZZ_BUILD)/fuzz_toolcall: tests/fuzz/fuzz_toolcall.c \
        $(call fuzz_obj,$(TOOLCALL_SRC))
	clang $(FUZZ_FLAGS) -Itoolcall -o $@ $^ $(JANSSON_LIBS)
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c \
        $(call fuzz_obj,weights/tensors.c weights/%.c util/printable.c)
	clang $(FUZZ_FLAGS) -Iweights -o $@ $^ $(JANSSON_LIBS)
FUZZERS := $(addprefix $(FUZZ_BUILD)/fuzz_,extract rows rowscan pyre sse \
           page tar toolcall safetensors gguf)
fuzz: $(FUZZERS)
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

BENCH_QUESTIONS ?= 100000
RUN_BENCH_QUESTIONS ?= 2000
bench: $(GRAVEYARD) $(FAKE)
	$(CC) $(BASEFLAGS) -o $(BUILD)/benchgen tests/bench/gen.c
	$(PYTHON) tests/bench/bench.py --graveyard $(GRAVEYARD) \
	    --gen $(BUILD)/benchgen --questions $(BENCH_QUESTIONS)
	$(PYTHON) tests/bench/run_bench.py --graveyard $(GRAVEYARD) \
	    --fake $(FAKE) --questions $(RUN_BENCH_QUESTIONS)
	sh tests/bench/hash_bench.sh $(GRAVEYARD)
	$(PYTHON) tests/bench/abort_bench.py --graveyard $(GRAVEYARD) \
	    --fake $(FAKE)
	$(PYTHON) tests/bench/share_bench.py --graveyard $(GRAVEYARD) \
	    --fake $(FAKE)
	$(PYTHON) tests/bench/rule_bench.py --graveyard $(GRAVEYARD) \
	    --gen $(BUILD)/benchgen --questions $(BENCH_QUESTIONS) \
	    --dir $(BUILD)/bench
	$(PYTHON) tests/bench/sched_bench.py --graveyard $(GRAVEYARD) \
	    --fake $(FAKE)
	$(PYTHON) tests/bench/report_bench.py --graveyard $(GRAVEYARD)
	/usr/bin/python3 tests/bench/page_bench.py --graveyard $(GRAVEYARD) \
	    --dir $(BUILD)/bench-page
	$(CC) $(BASEFLAGS) $(ORCH_CFLAGS) -o $(BUILD)/qload \
	    tests/bench/qload.c $(LIBORCH) $(LIBREPORT) $(LIBRUNDIR) \
	    $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(LIBHAYSTACK) $(LIBWEIGHTS) $(LIBUTIL) \
	    $(ORCH_LIBS) -lm
	$(PYTHON) tests/bench/questions_bench.py --qload $(BUILD)/qload
	/usr/bin/python3 tests/bench/f16_bench.py --graveyard $(GRAVEYARD)
	$(MAKE) bench-probs
	$(MAKE) bench-longctx

# The long-context generator: a 64K-token item per kind, under 50 ms
# with a cheap counter (tests/bench/haystack_bench.c, docs/performance.md)
# What a long answer costs the client (docs/performance.md, "Long
# answers"): CPU, RSS and bytes written per answer at 64K tokens against
# 1K, on the fake; the generator alone first.
bench-longctx: $(GRAVEYARD) $(FAKE) bench-haystack $(BUILD)/qload
	/usr/bin/python3 tests/bench/longctx_bench.py --graveyard $(GRAVEYARD) \
	    --fake $(FAKE) --qload $(BUILD)/qload

# the question loader alone (longctx_bench.py: a load as the runner's
# against as the report's pages')
$(BUILD)/qload: tests/bench/qload.c $(LIBORCH) $(LIBREPORT) $(LIBRUNDIR) \
	    $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(LIBHAYSTACK) $(LIBWEIGHTS) $(LIBUTIL)
	$(CC) $(BASEFLAGS) $(ORCH_CFLAGS) -o $@ tests/bench/qload.c $(LIBORCH) \
	    $(LIBREPORT) $(LIBRUNDIR) $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) $(LIBHAYSTACK) \
	    $(LIBWEIGHTS) $(LIBUTIL) $(ORCH_LIBS) -lm

bench-haystack: $(LIBHAYSTACK)
	$(CC) $(BASEFLAGS) -Ihaystack -o $(BUILD)/haystack_bench \
	    tests/bench/haystack_bench.c $(LIBHAYSTACK)
	$(BUILD)/haystack_bench

# What logprobs cost the report: a 10 x 1,319 ladder with probs files
# (tests/bench/probsgen.c writes them with the runner's encoder) against
# the same without (docs/performance.md).
$(BUILD)/probsgen: tests/bench/probsgen.c grader/probs.h $(LIBGRADER) $(LIBTOOLCALL) \
        $(LIBPYRE)
	$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $< $(LIBGRADER) $(LIBTOOLCALL) $(LIBPYRE) -lm
bench-probs: $(GRAVEYARD) $(BUILD)/probsgen
	$(PYTHON) tests/bench/probs_bench.py --graveyard $(GRAVEYARD) \
	    --probsgen $(BUILD)/probsgen --dir $(BUILD)/bench

deps:
	sh scripts/deps.sh

# The demo builds what it runs on every core (README's first command is a
# plain `make demo`), then runs.
demo:
	@$(MAKE) --no-print-directory -j$$(nproc) $(GRAVEYARD) $(FAKE) $(FAKE_TOOLS)
	sh scripts/demo.sh $(BUILD)

# make install: the binary; its man page made from its own help
# (scripts/man.sh); bash completion; and in PREFIX/share/graveyard what an
# installed graveyard reads: the shipped questions (data/, init's default),
# the configs (the demo's among them), the fake llama-server and tools the
# demo runs (build/, where the demo configs find them) and the docs. The
# demo then runs from any folder (docs/install.md). DESTDIR for packaging.
PREFIX ?= /usr/local
SHAREDIR = $(DESTDIR)$(PREFIX)/share/graveyard
install: $(GRAVEYARD) $(FAKE) $(FAKE_TOOLS)
	install -d $(DESTDIR)$(PREFIX)/bin $(SHAREDIR)/build \
	    $(SHAREDIR)/tests/fake-tools $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(GRAVEYARD) $(DESTDIR)$(PREFIX)/bin/graveyard
	install -m 0755 $(FAKE) $(FAKE_TOOLS) $(SHAREDIR)/build/
	install -m 0644 tests/fake-tools/convert_hf_to_gguf.py \
	    $(SHAREDIR)/tests/fake-tools/
	rm -rf $(SHAREDIR)/data $(SHAREDIR)/configs $(SHAREDIR)/docs
	cp -R data configs docs $(SHAREDIR)/
	install -m 0644 README.md $(SHAREDIR)/docs/README.md
	chmod -R u+rwX,go+rX,go-w $(SHAREDIR)
	sh scripts/man.sh $(GRAVEYARD) >$(DESTDIR)$(PREFIX)/share/man/man1/graveyard.1.tmp
	mv $(DESTDIR)$(PREFIX)/share/man/man1/graveyard.1.tmp \
	    $(DESTDIR)$(PREFIX)/share/man/man1/graveyard.1
	install -m 0644 scripts/graveyard-completion.bash \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/graveyard

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/graveyard \
	    $(DESTDIR)$(PREFIX)/share/man/man1/graveyard.1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/graveyard
	rm -rf $(SHAREDIR)

valgrind:
	$(MAKE) BUILD=build/valgrind CFLAGS="-O0" $(UNIT_BIN:$(BUILD)/%=build/valgrind/%) build/valgrind/graveyard
	@for t in $(UNIT_BIN:$(BUILD)/%=build/valgrind/%); do \
	    valgrind -q --error-exitcode=1 --leak-check=full $$t || exit 1; done

lint: check-size
	clang-format --dry-run --Werror grader/*.[ch] pyre/*.[ch] haystack/*.[ch] toolcall/*.[ch] report/*.[ch] \
	    orchestrator/*/*.[ch] rundir/*.[ch] util/*.[ch] weights/*.[ch] \
	    tests/fake-llama-server/*.c tests/fake-tools/*.[ch]
	cppcheck --quiet --error-exitcode=1 --std=c11 grader pyre haystack toolcall report \
	    orchestrator rundir util weights

clean:
	rm -rf build
