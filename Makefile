# picard - build, test and device bundle.
#
#   make              library, picard-run, the test binary
#   make test         Criterion suite (GPU tests skip without a device)
#   make gpu-bundle   bin/ + lib/ folder to carry to a GPU machine
#   make V=1          show full commands
#
# Every models/*.cu is a model: the build discovers it and generates the
# registry (build/registry.c); nothing else is edited to add one.

CUDA_HOME ?= /usr/local/cuda
CUDA_ARCH ?= 90
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc

BUILD := build
BIN   := bin

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -Wall -Wextra -fopenmp -Iinclude -Isrc -I$(CUDA_HOME)/include -MMD -MP
NVFLAGS  ?= -O3 -g
NVFLAGS  += -std=c++17 -gencode arch=compute_$(CUDA_ARCH),code=[sm_$(CUDA_ARCH),compute_$(CUDA_ARCH)] \
	    -Iinclude -Isrc -Ikernels -Xcompiler -Wall,-Wextra -MMD -MP
# RPATH (not RUNPATH) so a carried lib/ also serves its libraries' own needs.
LDFLAGS  += -fopenmp -L$(CUDA_HOME)/lib64 \
	    -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/lib:$$ORIGIN/../lib:$(CUDA_HOME)/lib64'
LDLIBS   += -lgsl -lgslcblas -lcurand -lcudart_static -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -lm -ldl -lpthread -lrt

ifeq ($(V),1)
Q :=
else
Q := @
endif

MODELS       := $(sort $(basename $(notdir $(wildcard models/*.cu))))
MODEL_OBJS   := $(MODELS:%=$(BUILD)/models/%.o)
KERNEL_OBJS  := $(patsubst kernels/%.cu,$(BUILD)/kernels/%.o,$(wildcard kernels/*.cu))
LIB_OBJS     := $(patsubst src/%.c,$(BUILD)/src/%.o,$(wildcard src/*.c)) \
		$(BUILD)/registry.o $(MODEL_OBJS) $(KERNEL_OBJS)
# Programs: src/cli/picard_NAME.c holds the main of bin/picard-NAME; the
# other src/cli/*.c files are shared by the programs.
PROGRAMS     := $(patsubst src/cli/picard_%.c,picard-%,$(wildcard src/cli/picard_*.c))
CLI_COMMON   := $(patsubst src/cli/%.c,$(BUILD)/src/cli/%.o,$(filter-out src/cli/picard_%.c,$(wildcard src/cli/*.c)))
TEST_OBJS    := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(wildcard tests/*.c))
LIB          := $(BUILD)/libpicard.a

.PHONY: all test gpu-bundle deps clean
all: deps $(PROGRAMS:%=$(BIN)/%) $(BIN)/picard-tests

# ---- system packages: install as root, else say what to run ----------------
deps:
	@CUDA_HOME=$(CUDA_HOME) src/mk/ensure-deps.sh

# ---- generated registry -----------------------------------------------------
# Rewritten only when the model list changes, so adding a file rebuilds it.
$(BUILD)/registry.c: FORCE
	@mkdir -p $(@D)
	@src/mk/gen-registry.sh $(MODELS) > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $@ ($(MODELS))"; fi
FORCE:

$(BUILD)/registry.o: $(BUILD)/registry.c
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# ---- objects ----------------------------------------------------------------
$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The tuning cache keys its entries by build: the git commit, -dirty with
# uncommitted changes to tracked files, "unknown" outside git. $(BUILD)/build-id
# changes only when the id does; src/tune_cache.c alone is compiled with it.
BUILD_ID := $(shell h=$$(git rev-parse --short HEAD 2>/dev/null) && \
		{ git diff --quiet HEAD -- 2>/dev/null && echo $$h || echo $$h-dirty; } || echo unknown)
$(BUILD)/build-id: FORCE
	@mkdir -p $(@D)
	@echo '$(BUILD_ID)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $@ ($(BUILD_ID))"; fi
$(BUILD)/src/tune_cache.o: $(BUILD)/build-id
$(BUILD)/src/tune_cache.o: CFLAGS += -DPICARD_BUILD_ID='"$(BUILD_ID)"'

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/models/%.o: models/%.cu
	@mkdir -p $(@D)
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(NVFLAGS) -c $< -o $@

$(BUILD)/kernels/%.o: kernels/%.cu
	@mkdir -p $(@D)
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(NVFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- programs -----------------------------------------------------------------
# Objects reached only through the pattern rule are kept, not deleted as
# intermediate files.
.SECONDARY: $(CLI_COMMON) $(PROGRAMS:picard-%=$(BUILD)/src/cli/picard_%.o)
$(BIN)/picard-%: $(BUILD)/src/cli/picard_%.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LDLIBS) -o $@

$(BIN)/picard-tests: $(TEST_OBJS) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(TEST_OBJS) $(LIB) $(LDFLAGS) $(LDLIBS) -lcriterion -o $@

# ---- tests ------------------------------------------------------------------
# The CLI tests find picard-run beside the test binary.
test: all
	$(BIN)/picard-tests $(TEST_ARGS)

# ---- device bundle --------------------------------------------------------
# The GPU machine has the CUDA toolkit but no GSL or Criterion: unpack their
# Debian packages next to the binaries (bin/lib, found through RPATH).
gpu-bundle: all
	@src/mk/bundle-libs.sh $(BIN)/lib

clean:
	rm -rf $(BUILD) $(BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
