# fuzz.mk - libFuzzer targets (tests/fuzz/), built with clang and ASan + UBSan.
#
#   make fuzz             build build/fuzz/fuzz_{tokenize,qkvfile,cli,maskfile,keys,llamatok,llama2,safetensors,hftok,hfconfig,stindex,lesson,stream,gguf,ggufmodel,discover}
#   make fuzz-smoke       run each for FUZZ_SECONDS (default 60) on a copy of its
#                         seed corpus; fails on any crash, leak, timeout or OOM
#   make fuzz-regress     run each once over tests/fuzz/regress/<target>/
#   make -j2 fuzz-smoke-keys FUZZ_SECONDS=300    one target, longer
#   make -j2 fuzz-smoke FUZZ_RUNS=1000000        a number of executions
#                         instead (CI), within FUZZ_MAX_SECONDS (900) each
#   make -j2 fuzz-ci      CI: FUZZ_CI_RUNS (1,000,000; .ci/run: 500,000) executions of each (keys: a third)
#                         target, keys in two halves side by side
#   make fuzz-merge       minimize the seeds and what the last runs found
#                         into tests/fuzz/corpus/<target>/ (then commit it)
#
# Included by the Makefile (`include fuzz.mk`), or alone: `make -f fuzz.mk fuzz`.
# Needs clang (Debian: clang, libclang-rt-14-dev for the fuzzer runtime) and the
# same -dev packages as the main build. See tests/fuzz/README.md.

# Whatever the including Makefile made its default goal stays its default goal
# (restored at the end of this file).
FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
# With FUZZ_RUNS, a run stops after that many executions (the seeds count),
# or after FUZZ_MAX_SECONDS, whichever comes first.
FUZZ_RUNS        ?=
FUZZ_MAX_SECONDS ?= 900
FUZZ_LIMIT = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_MAX_SECONDS),-max_total_time=$(FUZZ_SECONDS))
FUZZ_BUILD   := build/fuzz
FUZZ_TARGETS := tokenize qkvfile cli maskfile keys llamatok llama2 safetensors hftok hfconfig stindex lesson stream gguf ggufmodel discover
# cairo and pango: headers only (tui/gfx/gfx.c loads the libraries when a picture is drawn).
FUZZ_PKGS    := ncursesw libpcre2-8 libcjson libutf8proc
FUZZ_GFXPKGS := cairo pangocairo
# UBSan recovers by default (prints, goes on): -fno-sanitize-recover makes every
# report abort, so that libFuzzer keeps the input as a crash.
FUZZ_SAN     := address,undefined
FUZZ_CFLAGS  := -std=c11 -g -O2 -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -fno-sanitize-recover=all \
                -fno-omit-frame-pointer -ffp-contract=off -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600 \
                -fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt \
                $(SRC_INC) $(TUI_INC) $(shell pkg-config --cflags $(FUZZ_PKGS) $(FUZZ_GFXPKGS) 2>/dev/null)
FUZZ_LDFLAGS := -fsanitize=fuzzer,$(FUZZ_SAN) -fno-sanitize-recover=all
FUZZ_LIBS    := $(shell pkg-config --libs $(FUZZ_PKGS) 2>/dev/null) -lm -pthread
# The lines of a sanitizer or invariant report worth printing on failure.
FUZZ_REPORT_LINES := ^(==[0-9]+==ERROR|SUMMARY|==fuzz==|Running: |    \#[0-9]+ |.*runtime error|MS: |artifact_prefix)
# Texts and tokenizer files get inputs large enough to reach the paths that
# are quadratic when done wrong (libFuzzer's default 4 KB cap hid 100,000
# added tokens tried at every byte), and a per-input timeout that a linear
# run of the largest input stays far below (fuzz_hftok's grown inputs, 100,000
# added tokens over 256 KiB, take about 2 s with the sanitizers), so that
# super-linear work fails as a timeout. The other targets: 10 s.
FUZZ_MAX_LEN_tokenize := 65536
FUZZ_MAX_LEN_llamatok := 65536
FUZZ_MAX_LEN_hftok    := 65536
# A model file: the seeds (tiny valid models) are 10 to 40 KB.
FUZZ_MAX_LEN_ggufmodel := 65536
FUZZ_TIMEOUT_tokenize := 5
FUZZ_TIMEOUT_llamatok := 5
FUZZ_TIMEOUT_hftok    := 10
# Its grown inputs are slow by design: libFuzzer gives an input less time the
# longer it runs, so that they do not slow the rest (192 executions a second
# without, thousands with).
FUZZ_EXTRA_hftok      := -entropic_scale_per_exec_time=1
# Options of every fuzzing run of target $* (smoke, regress, merge).
FUZZ_RUN_OPTS = -timeout=$(or $(FUZZ_TIMEOUT_$*),10) -rss_limit_mb=2048 -print_final_stats=1 \
                $(if $(FUZZ_MAX_LEN_$*),-max_len=$(FUZZ_MAX_LEN_$*)) $(FUZZ_EXTRA_$*)

# The core and the front end without main.c, screen.c (and its input), its signals.c and the
# load watch (which need a terminal).
FUZZ_LIB_SRC := $(wildcard src/*/*.c) $(filter-out tui/main.c tui/screen.c tui/screen_input.c tui/signals.c tui/loadwatch.c,$(wildcard tui/*.c tui/*/*.c))
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_HDRS    := $(wildcard src/*/*.h tui/*.h tui/*/*.h tests/fuzz/*.h)

.PHONY: fuzz fuzz-smoke fuzz-regress fuzz-merge $(FUZZ_TARGETS:%=fuzz-smoke-%) $(FUZZ_TARGETS:%=fuzz-regress-%) \
        $(FUZZ_TARGETS:%=fuzz-merge-%)

fuzz: $(FUZZ_BINS)

# The canvas is written cell by cell (each cell checked as UTF-8 and measured)
# on every frame of fuzz_keys: comparison tracing there (trace-cmp) cost half
# of its time and guides nothing that the dictionaries and the edge counters
# do not (those stay on, as do ASan and UBSan). The numeric files (random
# streams, products, seeded weights, row operations, PCA) have no coverage at
# all: tests/fuzz/coverage-ignore.txt. The seeded forward (model_forward.c: additive
# scores at d_k 4096 spent 3 of 8 s in tracing) and the engine's forward pass (fuzz_llama2)
# keep their edges but not comparison tracing.
FUZZ_NO_CMP := tui/gfx/canvas.c tui/gfx/text.c src/base/utf8.c src/core/model_forward.c src/engine/transformer.c src/engine/transformer_linear.c
$(FUZZ_NO_CMP:%.c=$(FUZZ_BUILD)/obj/%.o): FUZZ_COV := -fno-sanitize-coverage=trace-cmp

# The targets themselves are held to the house warnings (the project's sources
# get theirs from the main build).
$(FUZZ_BUILD)/obj/tests/fuzz/%.o: FUZZ_WARN := -Wall -Wextra -Wpedantic -Werror

$(FUZZ_BUILD)/obj/%.o: %.c $(FUZZ_HDRS) fuzz.mk tests/fuzz/coverage-ignore.txt
	@mkdir -p $(dir $@)
	@echo "FUZZ CC $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COV) $(FUZZ_WARN) -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ)
	@echo "FUZZ LD $@"
	@$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_LIBS)

# Each run fuzzes a fresh copy of the seed corpus (the seeds stay as they are);
# new inputs go to build/fuzz/corpus-<target>/, a crash to build/fuzz/<target>-crash-* (or -leak-, -timeout-, -oom-).
# A dictionary tests/fuzz/<target>.dict is used when there is one.
# The slowest first: with -j2 it runs beside the others in turn.
fuzz-smoke: fuzz-smoke-keys fuzz-smoke-tokenize fuzz-smoke-qkvfile fuzz-smoke-cli fuzz-smoke-llamatok \
            fuzz-smoke-llama2 fuzz-smoke-safetensors fuzz-smoke-hftok fuzz-smoke-hfconfig fuzz-smoke-gguf \
            fuzz-smoke-ggufmodel fuzz-smoke-discover

$(FUZZ_TARGETS:%=fuzz-smoke-%): fuzz-smoke-%: $(FUZZ_BUILD)/fuzz_%
	@rm -rf $(FUZZ_BUILD)/corpus-$*$(FUZZ_PART)
	@mkdir -p $(FUZZ_BUILD)/corpus-$*$(FUZZ_PART)
	@cp -R tests/fuzz/corpus/$*/. $(FUZZ_BUILD)/corpus-$*$(FUZZ_PART)/
	@echo "FUZZ $*$(FUZZ_PART) for $(if $(FUZZ_RUNS),$(FUZZ_RUNS) executions (at most $(FUZZ_MAX_SECONDS) s),$(FUZZ_SECONDS) s) (log: $(FUZZ_BUILD)/smoke-$*$(FUZZ_PART).log)"
	@start=$$(date +%s); ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	 ./$< $(FUZZ_RUN_OPTS) $(FUZZ_LIMIT) \
		-artifact_prefix=$(FUZZ_BUILD)/$*- $(if $(FUZZ_PART),-seed=$(FUZZ_PART:-%=%)) \
		$(if $(wildcard tests/fuzz/$*.dict),-dict=tests/fuzz/$*.dict) \
		$(FUZZ_BUILD)/corpus-$*$(FUZZ_PART) >$(FUZZ_BUILD)/smoke-$*$(FUZZ_PART).log 2>&1; \
	 rc=$$?; grep -E '^(#[0-9]+[[:space:]]+DONE|stat::)' $(FUZZ_BUILD)/smoke-$*$(FUZZ_PART).log | head -6; \
	 echo "FUZZ $*$(FUZZ_PART): $$(($$(date +%s) - start)) s"; \
	 if [ $$rc != 0 ]; then grep -E '$(FUZZ_REPORT_LINES)' $(FUZZ_BUILD)/smoke-$*$(FUZZ_PART).log | head -40; \
		echo "FUZZ $*: FAILED (exit $$rc); the input is in $(FUZZ_BUILD)/$*-crash-*"; exit 1; fi

# Every kept crash input runs once; the directories may be empty.
fuzz-regress: $(FUZZ_TARGETS:%=fuzz-regress-%)

$(FUZZ_TARGETS:%=fuzz-regress-%): fuzz-regress-%: $(FUZZ_BUILD)/fuzz_%
	@files=$$(find tests/fuzz/regress/$* -type f ! -name '.keep' ! -name 'README*' | sort); \
	 if [ -z "$$files" ]; then echo "FUZZ REGRESS $*: no inputs"; exit 0; fi; \
	 echo "FUZZ REGRESS $*: $$(echo "$$files" | wc -l) inputs"; \
	 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	 ./$< -timeout=$(or $(FUZZ_TIMEOUT_$*),10) -rss_limit_mb=2048 $$files >$(FUZZ_BUILD)/regress-$*.log 2>&1 \
		|| { grep -E '$(FUZZ_REPORT_LINES)' $(FUZZ_BUILD)/regress-$*.log | head -40; \
		     echo "FUZZ REGRESS $*: FAILED (log: $(FUZZ_BUILD)/regress-$*.log)"; exit 1; }

# FUZZ_PART=-N: one of several runs of a target side by side (its own corpus
# copy build/fuzz/corpus-<target>-N/, log and -seed=N).
FUZZ_PART ?=

# CI: FUZZ_CI_RUNS executions of every target on two cores (make -j2
# fuzz-ci), keys a third of them. keys runs about 650 a second (every input
# drives the app: 250,000 took 387 s on 2026-12-01) and the others 6,500 to
# 70,000 (llama2 about 6,500: every input runs a model; stindex, each input
# written to a file and its shards opened: a quarter of the runs; lesson and
# stream, every input applied to an app and drawn: a tenth). keys is split
# into two halves with different seeds, one on each core, each beside half of
# the others, so that both cores finish together (about 270 s each at
# FUZZ_CI_RUNS=500000).
FUZZ_CI_RUNS ?= 1000000
FUZZ_SUBMAKE  = $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST))
.PHONY: fuzz-ci fuzz-ci-a fuzz-ci-b
fuzz-ci: fuzz-ci-a fuzz-ci-b

fuzz-ci-a: $(FUZZ_BINS)
	@+$(FUZZ_SUBMAKE) fuzz-smoke-llama2 FUZZ_RUNS=$(FUZZ_CI_RUNS)
	@+$(FUZZ_SUBMAKE) fuzz-smoke-stindex FUZZ_RUNS=$$(($(FUZZ_CI_RUNS) / 4))
	@+$(FUZZ_SUBMAKE) fuzz-smoke-stream FUZZ_RUNS=$$(($(FUZZ_CI_RUNS) / 10))
	@+$(FUZZ_SUBMAKE) fuzz-smoke-keys FUZZ_RUNS=$$(($(FUZZ_CI_RUNS) / 6)) FUZZ_PART=-1

fuzz-ci-b: $(FUZZ_BINS)
	@+for t in tokenize qkvfile cli maskfile llamatok safetensors hftok hfconfig gguf ggufmodel discover; do $(FUZZ_SUBMAKE) fuzz-smoke-$$t FUZZ_RUNS=$(FUZZ_CI_RUNS) || exit 1; done
	@+$(FUZZ_SUBMAKE) fuzz-smoke-lesson FUZZ_RUNS=$$(($(FUZZ_CI_RUNS) / 10))
	@+$(FUZZ_SUBMAKE) fuzz-smoke-keys FUZZ_RUNS=$$(($(FUZZ_CI_RUNS) / 6)) FUZZ_PART=-2

# The inputs the last runs found (build/fuzz/corpus-<target>/) and the kept
# ones, minimized (-merge=1: the fewest inputs that add a feature to the
# named seeds) into tests/fuzz/corpus/<target>/found/, which is replaced; the
# named seeds at the top stay as they are (libFuzzer reads the directory
# recursively). Review the count and commit it.
# Edges only (no hit counts): a few hundred inputs per target, not a thousand.
FUZZ_MERGE_OPTS ?= -use_counters=0
fuzz-merge: $(FUZZ_TARGETS:%=fuzz-merge-%)

$(FUZZ_TARGETS:%=fuzz-merge-%): fuzz-merge-%: $(FUZZ_BUILD)/fuzz_%
	@rm -rf $(FUZZ_BUILD)/merged-$*
	@mkdir -p $(FUZZ_BUILD)/merged-$* tests/fuzz/corpus/$*/found
	@find tests/fuzz/corpus/$* -maxdepth 1 -type f -exec cp {} $(FUZZ_BUILD)/merged-$*/ \;
	@ASAN_OPTIONS=detect_leaks=1 ./$< -merge=1 $(FUZZ_MERGE_OPTS) $(FUZZ_RUN_OPTS) $(FUZZ_BUILD)/merged-$* \
		tests/fuzz/corpus/$*/found $(wildcard $(FUZZ_BUILD)/corpus-$* $(FUZZ_BUILD)/corpus-$*-*) \
		>$(FUZZ_BUILD)/merge-$*.log 2>&1 \
		|| { tail -20 $(FUZZ_BUILD)/merge-$*.log; echo "FUZZ MERGE $*: FAILED"; exit 1; }
	@rm -rf tests/fuzz/corpus/$*/found && mkdir tests/fuzz/corpus/$*/found
	@for f in $(FUZZ_BUILD)/merged-$*/*; do \
		[ -e "tests/fuzz/corpus/$*/$${f##*/}" ] || mv "$$f" tests/fuzz/corpus/$*/found/; done
	@echo "FUZZ MERGE $*: $$(ls tests/fuzz/corpus/$*/found | wc -l) found inputs in tests/fuzz/corpus/$*/found"

# Keep the objects of the pattern rules (make would delete them as intermediates).
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o)

# Alone (make -f fuzz.mk), the default goal is `fuzz`; included, the including
# Makefile's stays, whether fuzz.mk comes before or after its first rule.
ifeq ($(FUZZ_SAVED_GOAL)$(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := fuzz
else
.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
endif
