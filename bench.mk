# bench.mk - `make bench` (issue 7): timings of attnviz beside NumPy and
# PyTorch, key-to-frame latency, bytes sent to the terminal, startup and
# memory. A benchmark, not a test: it prints key=value lines and never fails
# on a number; it installs nothing and says what it skipped and why.
# Included at the end of the Makefile (after BUILD, CORE_OBJ, TUI_OBJ, BIN,
# ALLFLAGS and LIBS are defined, and so that `bench` is not the default goal),
# or: make -f Makefile -f bench.mk bench.
# Use the release build (the default BUILD, -O2): the figures of a sanitizer
# or -O0 build mean nothing.

BENCH_BIN := $(BUILD)/tests/bench/bench

.PHONY: bench

$(BENCH_BIN): tests/bench/bench.c $(CORE_OBJ) $(TUI_OBJ) $(CORE_HDR) $(TUI_HDR)
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(ALLFLAGS) -o $@ tests/bench/bench.c $(CORE_OBJ) $(TUI_OBJ) $(LIBS)

bench: $(BIN) $(BENCH_BIN)
	@BENCH=$(BENCH_BIN) ATTNVIZ=$(BIN) BENCH_BUILD="$(BUILD) $(OPT) $(SAN)" sh tests/bench/run.sh
