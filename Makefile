# attnviz - build, run and test. `make run` and `make test` are the two
# commands of the README; both install missing Debian packages first (deps).

CC      ?= cc
PKGS    := ncursesw libpcre2-8
TESTPKG := cmocka
DEBS    := libncurses-dev libpcre2-dev libcmocka-dev pkg-config tmux

BUILD   ?= build/release
OPT     ?= -O2
SAN     ?=
# Display strings are cut on purpose (snprintf into screen-sized buffers):
# -Wformat-truncation would flag every such cut.
WARN    := -Wall -Wextra -Wpedantic -Werror -Wno-format-truncation
CFLAGS  ?= $(OPT) -g
ALLFLAGS = -std=c11 $(WARN) -ffp-contract=off $(CFLAGS) $(SAN) \
           -Isrc -Itui $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
TESTLIBS = $(shell pkg-config --libs $(TESTPKG) 2>/dev/null)

CORE_SRC := $(wildcard src/*.c)
TUI_SRC  := $(filter-out tui/main.c,$(wildcard tui/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ  := $(TUI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BIN      := $(BUILD)/attnviz

.PHONY: all run test check clean deps unit e2e tests-bin valgrind

all: attnviz

# The binary at the root is the release build.
attnviz: $(BIN)
	@if [ "$(BUILD)" = "build/release" ]; then cp $(BIN) attnviz; fi

$(BIN): $(CORE_OBJ) $(TUI_OBJ) $(BUILD)/tui/main.o
	@echo "LD $@"
	@$(CC) $(ALLFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/%.o: %.c $(wildcard src/*.h tui/*.h) Makefile
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(ALLFLAGS) -c -o $@ $<

# test_oom makes allocations fail: malloc and calloc of the code go through it.
$(BUILD)/tests/test_oom: TESTWRAP := -Wl,--wrap=malloc,--wrap=calloc
# test_files makes writes fail (a full disk) and fsync fail.
$(BUILD)/tests/test_files: TESTWRAP := -Wl,--wrap=write,--wrap=fsync

$(BUILD)/tests/%: tests/%.c $(CORE_OBJ) $(TUI_OBJ) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(ALLFLAGS) -Itests $(shell pkg-config --cflags $(TESTPKG) 2>/dev/null) -o $@ $< \
		$(CORE_OBJ) $(TUI_OBJ) $(LIBS) $(TESTLIBS) $(TESTWRAP)

tests-bin: $(TEST_BIN) $(BIN)

run: deps all
	./attnviz

# Unit tests (cmocka), then the end-to-end scripts against the real binary.
test: deps
	@$(MAKE) --no-print-directory tests-bin attnviz
	@$(MAKE) --no-print-directory unit e2e

unit: tests-bin
	@fail=0; for t in $(TEST_BIN); do \
		echo "== $$t"; $$t || fail=1; done; \
	if [ $$fail = 0 ]; then echo "unit tests: all passed"; else echo "unit tests: FAILED"; exit 1; fi

e2e: tests-bin
	@ATTNVIZ=$(BIN) sh tests/run-e2e.sh

# The same tests built with AddressSanitizer and UndefinedBehaviorSanitizer.
check: deps
	@$(MAKE) --no-print-directory BUILD=build/check OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		tests-bin
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(MAKE) --no-print-directory BUILD=build/check OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		unit e2e

# The unit tests and a --dump of each kind under valgrind: zero errors and
# zero definite leaks (ncurses' still-reachable memory is not a leak).
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
valgrind: tests-bin attnviz
	@command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
	@fail=0; for t in $(TEST_BIN); do echo "== valgrind $$t"; $(VALGRIND) $$t >/dev/null || fail=1; done; \
	echo "== valgrind ./attnviz --dump"; \
	$(VALGRIND) ./attnviz --dump=json -m causal --pos sinusoidal "나는 어제 친구와 영화를 봤는데" >/dev/null || fail=1; \
	$(VALGRIND) ./attnviz --dump --qkv samples/worked-example.qkv >/dev/null || fail=1; \
	$(VALGRIND) ./attnviz --once --view pipeline -H 2 "Mary greeted Bob" >/dev/null || fail=1; \
	$(VALGRIND) ./attnviz -H 99 >/dev/null 2>&1; [ $$? = 2 ] || fail=1; \
	if [ $$fail = 0 ]; then echo "valgrind: no errors, no definite leaks"; else echo "valgrind: FAILED"; exit 1; fi

# Installs the Debian packages the build and the tests need when pkg-config or
# tmux cannot find them: through apt-get as root, otherwise prints the line.
deps:
	@missing=""; \
	pkg-config --version >/dev/null 2>&1 || missing="pkg-config"; \
	pkg-config --exists ncursesw 2>/dev/null || missing="$$missing libncurses-dev"; \
	pkg-config --exists libpcre2-8 2>/dev/null || missing="$$missing libpcre2-dev"; \
	pkg-config --exists cmocka 2>/dev/null || missing="$$missing libcmocka-dev"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) || exit 1; \
		else \
			echo "missing:$$missing"; \
			echo "install them with:  sudo apt-get install -y $(DEBS)"; exit 1; \
		fi; \
	fi

clean:
	rm -rf build attnviz

# libFuzzer targets (make fuzz, fuzz-smoke, fuzz-regress) and the benchmark.
include fuzz.mk
include bench.mk
