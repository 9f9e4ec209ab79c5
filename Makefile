# attnviz - build, run and test. `make run` and `make test` are the two
# commands of the README; both install missing Debian packages first (deps).

CC      ?= cc
# cairo and pangocairo draw the pictures (tui/gfx/picture.c, tui/gfx/figure.c: PNG,
# SVG, PDF; tui/gfx/bigtext.c); DejaVu Sans Mono and Nanum Gothic Coding are their
# fonts (Latin, Hangul at double width). Their headers are compiled in (GFXPKGS'
# cflags) but the libraries are not linked: tui/gfx/gfx.c loads them with dlopen
# when the first picture is drawn, so a process that draws none does not map
# them (~4 MB of its memory). dlopen is in glibc's libc (2.34 and later).
PKGS    := ncursesw libpcre2-8 libcjson libutf8proc
GFXPKGS := cairo pangocairo
TESTPKG := cmocka
DEBS    := libncurses-dev libpcre2-dev libcjson-dev libutf8proc-dev libcmocka-dev libcairo2-dev libpango1.0-dev fonts-dejavu-core \
           fonts-nanum pkg-config tmux gettext

BUILD   ?= build/release
OPT     ?= -O2
SAN     ?=
# Display strings are cut on purpose (snprintf into screen-sized buffers):
# -Wformat-truncation would flag every such cut.
WARN    := -Wall -Wextra -Wpedantic -Werror -Wno-format-truncation
CFLAGS  ?= $(OPT) -g
# The core (src/) is built without the front end's headers and linked into
# its tests without curses: a curses call or a tui/ header in src/ fails the
# build (DESIGN.md: src/ knows nothing of screens).
# The feature macros are those ncursesw's pkg-config gives tui/ (POSIX and
# X/Open interfaces: realpath, strdup, clock_gettime...).
# The layers of the core, lowest first (README: Layout). A file of src/L is
# compiled with the include paths of L and the layers below it only, so an
# include of a higher layer fails the build; `make lint` names it
# (tests/support/check_layers.py). tui/gfx (the canvas, colours, pictures)
# sees the whole core and itself; the rest of tui/ sees everything.
SRC_LAYERS := base kernels text engine formats core trained
TUI_DIRS   := gfx views lessons
layer_inc   = $(foreach l,$(wordlist 1,$(1),$(SRC_LAYERS)),-Isrc/$(l))
SRC_INC    := $(foreach l,$(SRC_LAYERS),-Isrc/$(l))
TUI_INC    := -Itui $(foreach d,$(TUI_DIRS),-Itui/$(d))
COREFLAGS = -std=c11 $(WARN) -ffp-contract=off $(CFLAGS) $(SAN) -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600 $(SRC_INC) \
            $(shell pkg-config --cflags libpcre2-8 libcjson libutf8proc 2>/dev/null)
ALLFLAGS = $(COREFLAGS) $(TUI_INC) -DLOCALEDIR='"$(LOCALEDIR)"' $(shell pkg-config --cflags $(PKGS) $(GFXPKGS) 2>/dev/null)
CORELIBS = $(shell pkg-config --libs libpcre2-8 libcjson libutf8proc 2>/dev/null) -lm -pthread
LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
TESTLIBS = $(shell pkg-config --libs $(TESTPKG) 2>/dev/null)

CORE_SRC := $(wildcard src/*/*.c)
TUI_SRC  := $(filter-out tui/main.c,$(wildcard tui/*.c tui/*/*.c))
CORE_HDR := $(wildcard src/*/*.h)
TUI_HDR  := $(wildcard tui/*.h tui/*/*.h)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
CORE_LIB := $(BUILD)/libattnviz-core.a
TUI_OBJ  := $(TUI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# The tests of src/ alone: built without tui/ headers, linked with the core
# library, PCRE2, cJSON, libm and pthread only.
CORE_TESTS := test_error test_export test_files test_formula test_matrix test_model test_oom test_pca test_qkvfile test_rng \
              test_tokenize test_utf8 test_llamatok test_llama2 test_source_llama test_census \
              test_safetensors test_hftok test_hftok_text test_hfmodel test_append test_textfit test_headtests test_interv \
              test_gguf test_formats test_ggufmodel
CORE_TEST_BIN := $(CORE_TESTS:%=$(BUILD)/tests/%)
BIN      := $(BUILD)/attnviz

.PHONY: pot pot-check all run test check clean deps unit e2e tests-bin valgrind tsan lint install uninstall doc-images

all: attnviz

# The interface in Korean: po/LANG.po compiled into build/locale, where
# tui/language.c finds it beside the binaries (make install puts it in
# share/locale). `make pot` collects the texts marked _(), N_(), P_() and
# num_plural into po/attnviz.pot and merges them into every po/LANG.po.
LINGUAS := ko
MO      := $(LINGUAS:%=build/locale/%/LC_MESSAGES/attnviz.mo)
POT_SRC  = $(sort $(CORE_SRC) $(CORE_HDR) $(TUI_SRC) tui/main.c $(TUI_HDR))
XGETTEXT := xgettext --from-code=UTF-8 --language=C -k_ -kN_ -kP_:1,2 -knum_plural:1,2 \
            --add-comments=TRANSLATORS: --add-location=file --package-name=attnviz --msgid-bugs-address=README.md \
            --foreign-user --sort-by-file

build/locale/%/LC_MESSAGES/attnviz.mo: po/%.po
	@mkdir -p $(dir $@)
	@echo "MSGFMT $<"
	@msgfmt --check -o $@.tmp $< && mv $@.tmp $@

pot:
	@$(XGETTEXT) -o po/attnviz.pot $(POT_SRC)
	@for l in $(LINGUAS); do msgmerge --quiet --update --backup=none --no-fuzzy-matching po/$$l.po po/attnviz.pot; \
		msgfmt --statistics -o /dev/null po/$$l.po; done

# The catalogue holds the texts the sources mark now, and po/ko.po
# translates every one of them, none fuzzy (tests/e2e_korean.sh).
pot-check:
	@$(XGETTEXT) -o build/attnviz.pot $(POT_SRC)
	@for l in $(LINGUAS); do \
		out=$$(msgcmp po/$$l.po build/attnviz.pot 2>&1) || { echo "$$out" | grep -v 'not used' | head -20; \
			echo "po/$$l.po: texts untranslated (make pot, then translate them)"; exit 1; }; \
		msgfmt --check -o /dev/null po/$$l.po || exit 1; \
		fuzzy=$$(msgattrib --only-fuzzy --no-obsolete po/$$l.po | grep -c '^msgid'); \
		[ "$$fuzzy" = 0 ] || { echo "po/$$l.po: $$fuzzy fuzzy texts"; exit 1; }; done

# The binary at the root is the release build.
attnviz: $(BIN) $(MO)
	@if [ "$(BUILD)" = "build/release" ]; then cp $(BIN) attnviz; fi

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary and the man page
# (INSTALL_BIN names another binary, e.g. a test's sanitizer build).
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
INSTALL_BIN ?= $(BIN)
LOCALEDIR   ?= $(PREFIX)/share/locale
install: $(INSTALL_BIN) doc/attnviz.1 $(MO)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1"
	install -m 755 $(INSTALL_BIN) "$(DESTDIR)$(BINDIR)/attnviz"
	install -m 644 doc/attnviz.1 "$(DESTDIR)$(MANDIR)/man1/attnviz.1"
	for l in $(LINGUAS); do install -d "$(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES"; \
		install -m 644 build/locale/$$l/LC_MESSAGES/attnviz.mo "$(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/attnviz.mo"; done

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/attnviz" "$(DESTDIR)$(MANDIR)/man1/attnviz.1"
	for l in $(LINGUAS); do rm -f "$(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/attnviz.mo"; done

$(BIN): $(TUI_OBJ) $(BUILD)/tui/main.o $(CORE_LIB)
	@echo "LD $@"
	@$(CC) $(ALLFLAGS) -o $@ $^ $(LIBS)

$(CORE_LIB): $(CORE_OBJ)
	@echo "AR $@"
	@rm -f $@ && ar rcs $@ $^

$(foreach i,1 2 3 4 5 6 7,$(eval $(BUILD)/src/$(word $(i),$(SRC_LAYERS))/%.o: SRC_INC := $(call layer_inc,$(i))))
$(BUILD)/tui/gfx/%.o: TUI_INC := -Itui/gfx

$(BUILD)/src/%.o: src/%.c $(CORE_HDR) Makefile
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(COREFLAGS) -c -o $@ $<

$(BUILD)/tui/%.o: tui/%.c $(CORE_HDR) $(TUI_HDR) Makefile
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(ALLFLAGS) -c -o $@ $<

# test_oom makes allocations fail: malloc and calloc of the code go through it.
$(BUILD)/tests/test_oom: TESTWRAP := -Wl,--wrap=malloc,--wrap=calloc
# test_files makes writes fail (a full disk) and fsync fail.
$(BUILD)/tests/test_files: TESTWRAP := -Wl,--wrap=write,--wrap=fsync

# What the tests share (testutil.h, json.h) is in tests/support/.
$(CORE_TEST_BIN): $(BUILD)/tests/%: tests/%.c $(CORE_LIB) $(wildcard tests/support/*.h)
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(COREFLAGS) -Itests/support $(shell pkg-config --cflags $(TESTPKG) 2>/dev/null) -o $@ $< \
		$(CORE_LIB) $(CORELIBS) $(TESTLIBS) $(TESTWRAP)

$(BUILD)/tests/%: tests/%.c $(TUI_OBJ) $(CORE_LIB) $(wildcard tests/support/*.h)
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(ALLFLAGS) -Itests/support $(shell pkg-config --cflags $(TESTPKG) 2>/dev/null) -o $@ $< \
		$(TUI_OBJ) $(CORE_LIB) $(LIBS) $(TESTLIBS) $(TESTWRAP)

tests-bin: $(TEST_BIN) $(BIN) $(MO)

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
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/support/lsan.supp \
		UBSAN_OPTIONS=print_stacktrace=1 \
		$(MAKE) --no-print-directory BUILD=build/check OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		unit e2e

# ThreadSanitizer: the unit tests that run the thread pool, then end-to-end
# scripts of the real binary with its frame thread and pool (2 and 4
# threads). Any report fails the run (halt_on_error).
TSAN_UNIT := test_model test_matrix test_pca
TSAN_E2E  := tests/e2e_signals.sh tests/e2e_tui.sh
# e2e_signals sends SIGSEGV, SIGBUS, SIGFPE and SIGABRT on purpose: they go to
# attnviz's own handler (the terminal restored), not to a sanitizer report.
TSAN_FATAL := handle_segv=0 handle_sigbus=0 handle_sigfpe=0 handle_abort=0 handle_sigill=0
tsan: deps
	@$(MAKE) --no-print-directory BUILD=build/tsan OPT=-O1 SAN="-fsanitize=thread -fno-omit-frame-pointer" \
		$(TSAN_UNIT:%=build/tsan/tests/%) build/tsan/attnviz
	@fail=0; for t in $(TSAN_UNIT); do echo "== tsan $$t"; \
		TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build/tsan/tests/$$t >/dev/null || fail=1; done; \
	for t in $(TSAN_E2E); do echo "== tsan $$t"; \
		TSAN_OPTIONS="halt_on_error=1 log_path=$(CURDIR)/build/tsan/report $(TSAN_FATAL)" ATTNVIZ=build/tsan/attnviz sh $$t >build/tsan/e2e.log 2>&1 || { cat build/tsan/e2e.log; fail=1; }; \
		tail -1 build/tsan/e2e.log; done; \
	if ls build/tsan/report.* >/dev/null 2>&1; then cat build/tsan/report.*; rm -f build/tsan/report.*; fail=1; fi; \
	if [ $$fail = 0 ]; then echo "tsan: no data race"; else echo "tsan: FAILED"; exit 1; fi

# Formatting (clang-format with .clang-format: the files must be as it would
# write them; src/base/utf8_width.h is generated), cppcheck's warnings, the
# layering of the folders (tests/support/check_layers.py) and the size of the
# parts: a file of src/ or tui/ over 750 lines or a function over 120 fails,
# one line naming it (tests/support/check_sizes.py; --report lists those over
# the ~700 and ~100 the style aims at).
LINT_FILES = $(filter-out src/base/utf8_width.h,$(wildcard src/*/*.[ch] tui/*.[ch] tui/*/*.[ch] tests/*.[ch] tests/support/*.[ch] \
             tests/fuzz/*.[ch] tests/bench/*.c))
lint:
	@command -v clang-format >/dev/null && command -v cppcheck >/dev/null || \
		{ echo "lint needs clang-format and cppcheck (apt-get install clang-format cppcheck)"; exit 1; }
	@clang-format --dry-run --Werror $(LINT_FILES) || { echo "lint: run clang-format -i on the files above"; exit 1; }
	@cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance --std=c11 --inline-suppr \
		$(SRC_INC) $(TUI_INC) --suppress=missingIncludeSystem -D__GNUC__ src tui
	@python3 tests/support/check_layers.py
	@python3 tests/support/check_sizes.py
	@echo "lint: formatted, no cppcheck warning, the layers kept, no part too big"

# The unit tests and a --dump of each kind under valgrind: zero errors and
# zero definite leaks (ncurses' still-reachable memory is not a leak).
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
            --suppressions=$(CURDIR)/tests/support/valgrind.supp
valgrind: tests-bin attnviz
	@command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
	@fail=0; for t in $(TEST_BIN); do echo "== valgrind $$t"; $(VALGRIND) $$t >/dev/null || fail=1; done; \
	echo "== valgrind ./attnviz --dump"; \
	$(VALGRIND) ./attnviz --dump=json -m causal --pos sinusoidal "나는 어제 친구와 영화를 봤는데" >/dev/null || fail=1; \
	$(VALGRIND) ./attnviz --dump --qkv samples/worked-example.qkv >/dev/null || fail=1; \
	$(VALGRIND) ./attnviz --once --view pipeline -H 2 "Mary greeted Bob" >/dev/null || fail=1; \
	$(VALGRIND) ./attnviz -H 99 >/dev/null 2>&1; [ $$? = 2 ] || fail=1; \
	if [ $$fail = 0 ]; then echo "valgrind: no errors, no definite leaks"; else echo "valgrind: FAILED"; exit 1; fi

# The README's picture: attnviz's own export of its screen (tests/e2e_readme.sh
# checks that the committed file is what the binary draws).
DOC_IMAGES_CMD = --export doc/img/screen.png --force --width 100
doc-images: attnviz
	./attnviz $(DOC_IMAGES_CMD)

# Installs the Debian packages the build and the tests need when pkg-config or
# tmux cannot find them: through apt-get as root, otherwise prints the line.
deps:
	@missing=""; \
	pkg-config --version >/dev/null 2>&1 || missing="pkg-config"; \
	pkg-config --exists ncursesw 2>/dev/null || missing="$$missing libncurses-dev"; \
	pkg-config --exists libpcre2-8 2>/dev/null || missing="$$missing libpcre2-dev"; \
	pkg-config --exists libcjson 2>/dev/null || missing="$$missing libcjson-dev"; \
	pkg-config --exists libutf8proc 2>/dev/null || missing="$$missing libutf8proc-dev"; \
	pkg-config --exists cmocka 2>/dev/null || missing="$$missing libcmocka-dev"; \
	pkg-config --exists cairo 2>/dev/null || missing="$$missing libcairo2-dev"; \
	pkg-config --exists pangocairo 2>/dev/null || missing="$$missing libpango1.0-dev"; \
	[ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || missing="$$missing fonts-dejavu-core"; \
	[ -d /usr/share/fonts/truetype/nanum ] || missing="$$missing fonts-nanum"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v msgfmt >/dev/null 2>&1 || missing="$$missing gettext"; \
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
