# picard - build, test and device bundle.
#
#   make              library, picard-run, the test binary
#   make test         Criterion suite (GPU tests skip without a device), then
#                     the Python package's (pytest tests/python)
#   make python       libpicard.so and the Python package over it (python/)
#   make gpu-bundle   bin/ + lib/ folder to carry to a GPU machine
#   make gpu-carry    the bundle as .xfer/bin.tar.xz, small enough to carry
#   make test-asan    the suite built with ASan + UBSan (build-asan/, bin-asan/)
#   make fuzz         libFuzzer targets of tests/fuzz/, FUZZ_SECONDS each (clang)
#   make bench        the benchmark programs (bin/bench-*, see bench/README.md)
#   make bench-check  bench-rk --selfcheck (orders of the Runge-Kutta methods)
#   make plots        PNG figures of a benchmark run (RESULTS=bench/results/DIR)
#   make install      headers, library, programs and picard.pc under PREFIX
#   make kernels      the shipped models' kernels ahead of time (ARCH=90, KERNEL_MODELS=...)
#                     (with MPI also picard_mpi.h, libpicard_mpi, the mpirun plugin, picard-mpi.pc)
#   make MPI=no       build without MPI even where it is installed
#   make V=1          show full commands
#
# Every models/*.cu is a model: the build discovers it and generates the
# registry (build/registry.c); nothing else is edited to add one.

CUDA_HOME ?= /usr/local/cuda
CUDA_ARCH ?= 90
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
CXX       ?= g++
# Debian's Python, whose python3-numpy and python3-pytest the deps step
# installs (a python3 earlier on PATH, pyenv's, would not see them)
PYTHON    ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)

BUILD := build
BIN   := bin
LIBDIR := lib

CFLAGS   ?= -O2 -g
# A folder per part of src/ (docs/architecture.md), each on the include
# path, so a file names what it includes by its own name wherever it
# lives; src/ itself for linsolve/, cli/, and src/linsolve/gpu/ for
# tridiag/ and krylov/, which are named with their folder. A scheme's
# folder, src/schemes/NAME/, joins by being there.
SCHEME_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard src/schemes/*/*))))
INC_DIRS := include src src/common src/model src/solve src/backend src/backend/cpu \
	    src/backend/cuda src/schemes $(SCHEME_DIRS) src/tune src/reference src/ensemble \
	    src/linsolve/gpu
INC      := $(INC_DIRS:%=-I%)
CFLAGS   += -std=c11 -Wall -Wextra -fopenmp -fPIC $(INC) -I$(CUDA_HOME)/include -MMD -MP
NVFLAGS  ?= -O3 -g
NVFLAGS  += -std=c++17 -gencode arch=compute_$(CUDA_ARCH),code=[sm_$(CUDA_ARCH),compute_$(CUDA_ARCH)] \
	    $(INC) -Xcompiler -Wall,-Wextra,-fPIC,-fopenmp -MMD -MP
# A model's host side (the CPU backend, the GSL reference), built by the
# system C++ compiler: here for models/, at run time for a model file
# elsewhere (src/model/model_load.c), with the same code generation flags, so
# that the two give the same bits.
MODEL_CODEGEN := -O3 -std=c++17 -fPIC -fvisibility=hidden
MODEL_CXXFLAGS = $(MODEL_CODEGEN) -g -Wall -Wextra $(INC) -MMD -MP
# RPATH (not RUNPATH) so a carried lib/ also serves its libraries' own needs.
LDFLAGS  += -fopenmp -L$(CUDA_HOME)/lib64 \
	    -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/lib:$$ORIGIN/../$(LIBDIR):$(CUDA_HOME)/lib64'
# libquadmath: the binary128 judge (src/reference/gauss_reference.c) and
# the models' rhs in binary128 (src/model/quad.h).
LIB_LDLIBS := -lgsl -lgslcblas -lcurand -lnvrtc -lcudart_static -lquadmath -lstdc++ -lm -ldl \
	      -lpthread -lrt
# The programs link the shared library; bench/ and the fuzz targets the
# static one with LIB_LDLIBS (bench-rk has kernels of its own: one CUDA
# runtime per process).
LDLIBS   += -L$(LIBDIR) -lpicard -lgsl -lgslcblas -lquadmath -lm -lpthread -ldl

# SANITIZE=address,undefined builds everything with those sanitizers (gcc;
# nvcc passes them to its host compiler): what make test-asan does, adding
# float-cast-overflow (a real out of an integer's range converted to it),
# which gcc leaves out of "undefined".
ifneq ($(SANITIZE),)
comma    := ,
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
CFLAGS   += $(SANFLAGS)
NVFLAGS  += $(foreach s,$(subst $(comma), ,$(SANITIZE)),-Xcompiler -fsanitize=$(s)) \
	    -Xcompiler -fno-omit-frame-pointer
LDFLAGS  += $(SANFLAGS)
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

MODELS       := $(sort $(basename $(notdir $(wildcard models/*.cu))))
MODEL_OBJS   := $(MODELS:%=$(BUILD)/models/%.o)
# The library: every .c and .cu of src/ but the programs' (cli/, mpi/),
# the build's own (mk/) and the tridiagonal solvers' test aids (below).
TRIDIAG_AID_SRCS := src/linsolve/gpu/tridiag/host_reference.c src/linsolve/gpu/tridiag/batch_memory.c
LIB_SRCS     := $(sort $(filter-out src/cli/% src/mpi/% src/mk/% $(TRIDIAG_AID_SRCS),\
		  $(shell find src -name '*.c' -o -name '*.cu')))
LIB_OBJS     := $(patsubst src/%.c,$(BUILD)/src/%.o,$(patsubst src/%.cu,$(BUILD)/src/%.o,$(LIB_SRCS))) \
		$(BUILD)/registry.o $(BUILD)/embedded.o $(MODEL_OBJS)
# What a model file includes, carried by the library as text for the
# kernels compiled at run time (src/model/jit.c) and for a model file's host
# side (src/model/model_load.c); NVRTC's stand-ins for C library headers.
# Their order is the kernel cache's key (src/model/jit.c): the kernel
# headers by name, then the headers of src/ they include.
by_name       = $(shell for f in $(1); do echo "$$(basename $$f) $$f"; done | LC_ALL=C sort | cut -d' ' -f2)
EMBED_HEADERS := $(call by_name,$(wildcard src/model/*.cuh src/schemes/*.cuh src/schemes/*/*.cuh)) \
		 src/schemes/imex/imex_launch.h src/schemes/rk/rk_host.h include/picard.h \
		 $(call by_name,src/backend/backend.h src/common/compensated.h \
		   src/schemes/convergence.h src/backend/cpu/cpu_records.h src/schemes/dense_output.h \
		   src/schemes/event_rules.h \
		   src/backend/cuda/launch.h src/model/model_impl.h src/model/quad.h \
		   src/schemes/newton/newton_rules.h \
		   src/common/portable.h src/schemes/window_plausible.h)
RTC_STUBS    := $(wildcard src/model/rtc/*.h)
# Programs: src/cli/picard_NAME.c holds the main of bin/picard-NAME; the
# other src/cli/*.c files, and src/cli/options/ (the steps that read
# picard-run's command line), are shared by the programs.
PROGRAMS     := $(patsubst src/cli/picard_%.c,picard-%,$(wildcard src/cli/picard_*.c))
CLI_COMMON   := $(patsubst src/cli/%.c,$(BUILD)/src/cli/%.o,\
		$(filter-out src/cli/picard_%.c,$(wildcard src/cli/*.c src/cli/options/*.c)))
# The tests: a folder per part of src/ (tests/PART/test_*.c), beside the
# aids they share (tests/*.c).
TEST_OBJS    := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(wildcard tests/*.c tests/*/test_*.c))
# C++ aids that instantiate a scheme's template for a test's own model
# (tests/PART/*.cpp, callable from C)
TEST_CXX_OBJS := $(patsubst tests/%.cpp,$(BUILD)/tests/%.o,$(wildcard tests/*/*.cpp))
# bench/stiff's host Rodas5P and msbdf reference, which the tests call too
STIFF_DIR    := $(BUILD)/bench/stiff
STIFF_TEST_OBJS := $(STIFF_DIR)/rodas_host.o $(STIFF_DIR)/stiff_common.o \
		   $(BUILD)/bench/bench_common.o
LIB          := $(LIBDIR)/libpicard.a
SHLIB        := $(LIBDIR)/libpicard.so

# ---- MPI (optional, GitHub issue 19) ----------------------------------------
# Open MPI (Debian: libopenmpi-dev): its flags from pkg-config ompi-c, else
# from its compiler wrapper. Found, libpicard_mpi holds include/picard_mpi.h
# (src/mpi/) and the plugin libpicard_mpirun.so picard-run's MPI side
# (src/mpi/cli/), which picard-run loads under mpirun (src/cli/shard.c):
# picard-run itself never links MPI. Not found, or MPI=no, everything else
# builds as without it.
ifneq ($(MPI),no)
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null || mpicc --showme:link 2>/dev/null)
MPIRUN     := $(shell command -v mpirun 2>/dev/null)
endif
MPI_FOUND    := $(if $(strip $(MPI_LIBS)),yes,)
MPI_LIB      := $(LIBDIR)/libpicard_mpi.a
MPI_SHLIB    := $(LIBDIR)/libpicard_mpi.so
MPI_LIB_OBJS := $(patsubst src/mpi/%.c,$(BUILD)/mpi/%.o,$(wildcard src/mpi/*.c))
MPI_CLI_OBJS := $(patsubst src/mpi/cli/%.c,$(BUILD)/mpi/cli/%.o,$(wildcard src/mpi/cli/*.c))
MPI_PLUGIN   := $(LIBDIR)/libpicard_mpirun.so
MPI_PROGS    := $(BIN)/mpi-api-check
MPI_TARGETS  := $(if $(MPI_FOUND),$(MPI_LIB) $(MPI_SHLIB) $(MPI_PLUGIN) $(MPI_PROGS))

.PHONY: all test test-asan python fuzz fuzz-cc gpu-bundle gpu-carry deps clean bench bench-check install mpi-status
all: deps mpi-status $(PROGRAMS:%=$(BIN)/%) $(BIN)/picard-tests $(LIB) $(MPI_TARGETS)

mpi-status:
ifeq ($(MPI_FOUND),yes)
	@echo "  MPI     found: libpicard_mpi, and picard-run runs under mpirun ($(if $(MPIRUN),$(MPIRUN),no mpirun on PATH))"
else
	@echo "  MPI     $(if $(filter no,$(MPI)),off (MPI=no),not found (apt-get install libopenmpi-dev)): picard-run runs as one process, make test skips the mpi tests"
endif

# ---- system packages: install as root, else say what to run ----------------
deps:
	@CUDA_HOME=$(CUDA_HOME) PYTHON=$(PYTHON) src/mk/ensure-deps.sh

# ---- generated registry -----------------------------------------------------
# Rewritten only when the model list changes, so adding a file rebuilds it.
$(BUILD)/registry.c: FORCE
	@mkdir -p $(@D)
	@src/mk/gen-registry.sh $(MODELS) > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $@ ($(MODELS))"; fi
FORCE:

$(BUILD)/registry.o: $(BUILD)/registry.c | deps
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/embedded.c: src/mk/embed.sh $(EMBED_HEADERS) $(RTC_STUBS) $(MODELS:%=models/%.cu)
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)src/mk/embed.sh $(EMBED_HEADERS) -- $(RTC_STUBS) -- $(MODELS:%=models/%.cu) > $@.tmp && mv $@.tmp $@

$(BUILD)/embedded.o: $(BUILD)/embedded.c | deps
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# ---- objects ----------------------------------------------------------------
$(BUILD)/src/%.o: src/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/src/%.o: src/%.cu | deps
	@mkdir -p $(@D)
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(NVFLAGS) -c $< -o $@

# The tuning cache keys its entries by build: the git commit, -dirty with
# uncommitted changes to tracked files, "unknown" outside git. $(BUILD)/build-id
# changes only when the id does; src/tune/tune_cache.c alone is compiled with it.
BUILD_ID := $(shell h=$$(git rev-parse --short HEAD 2>/dev/null) && \
		{ git diff --quiet HEAD -- 2>/dev/null && echo $$h || echo $$h-dirty; } || echo unknown)
$(BUILD)/build-id: FORCE
	@mkdir -p $(@D)
	@echo '$(BUILD_ID)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $@ ($(BUILD_ID))"; fi
$(BUILD)/src/tune/tune_cache.o: $(BUILD)/build-id
$(BUILD)/src/tune/tune_cache.o: CFLAGS += -DPICARD_BUILD_ID='"$(BUILD_ID)"'

$(BUILD)/tests/%.o: tests/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Itests -c $< -o $@

# tests/mpi/test_mpi.c runs picard-run under mpirun where picard-run was built
# with MPI, and skips (visibly) elsewhere.
$(BUILD)/tests/mpi/test_mpi.o: CFLAGS += -DPICARD_TEST_MPI=$(if $(MPI_FOUND),1,0) \
	-DPICARD_TEST_MPIRUN='"$(MPIRUN)"'
$(BUILD)/tests/mpi/test_mpi.o: $(BUILD)/mpi-found
$(BUILD)/mpi-found: FORCE
	@mkdir -p $(@D)
	@echo '$(MPI_FOUND) $(MPIRUN)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

# src/mpi/ (libpicard_mpi) and src/mpi/cli/ (picard-run's MPI side)
$(BUILD)/mpi/%.o: src/mpi/%.c $(BUILD)/mpi-found | deps
	@mkdir -p $(@D)
	@echo "  MPICC   $@"
	$(Q)$(CC) $(CFLAGS) -Isrc/cli $(MPI_CFLAGS) -c $< -o $@

# A model's host side. A model file that breaks the contract gets a
# message naming the rule: first the rules no compiler sees, checked by
# build/model-check (src/model/model_check.c, which picard_model_load uses too).
MODEL_CHECK := $(BUILD)/model-check
$(MODEL_CHECK): src/mk/model_check_main.c src/model/model_check.c src/common/cache_dir.c \
		src/common/errors.c | deps
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(filter-out -fopenmp -fPIC -MMD -MP,$(CFLAGS)) $^ -o $@

$(BUILD)/models/%.o: models/%.cu $(MODEL_CHECK) | deps
	@mkdir -p $(@D)
	@echo "  CXX     $@"
	$(Q)src/mk/compile-model.sh $@ $< $(MODEL_CHECK) $(CXX) $(MODEL_CXXFLAGS) \
		-DPICARD_BUILTIN_MODEL -x c++

$(BUILD)/src/model/model_load.o: CFLAGS += -DPICARD_MODEL_CODEGEN='"$(MODEL_CODEGEN)"' \
	-DPICARD_MODEL_CXX='"$(CXX)"'

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(SHLIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-soname,libpicard.so $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

$(MPI_LIB): $(MPI_LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(MPI_SHLIB): $(MPI_LIB_OBJS) $(SHLIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-soname,libpicard_mpi.so $(MPI_LIB_OBJS) $(LDFLAGS) -L$(LIBDIR) -lpicard \
		$(MPI_LIBS) -o $@

# ---- programs -----------------------------------------------------------------
# Objects reached only through the pattern rule are kept, not deleted as
# intermediate files.
.SECONDARY: $(CLI_COMMON) $(PROGRAMS:picard-%=$(BUILD)/src/cli/picard_%.o)
$(BIN)/picard-%: $(BUILD)/src/cli/picard_%.o $(CLI_COMMON) $(SHLIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter %.o,$^) $(LDFLAGS) $(LDLIBS) -o $@

# picard-run's symbols (the messages, the output's pieces) serve its MPI
# plugin, loaded at run time.
$(BIN)/picard-run: LDFLAGS += -rdynamic

ifeq ($(MPI_FOUND),yes)
$(MPI_PLUGIN): $(MPI_CLI_OBJS) $(MPI_SHLIB) $(SHLIB)
	@mkdir -p $(@D)
	@echo "  LD      $@ (MPI)"
	$(Q)$(CC) -shared -Wl,-soname,libpicard_mpirun.so $(MPI_CLI_OBJS) $(LDFLAGS) -L$(LIBDIR) \
		-lpicard_mpi -lpicard $(MPI_LIBS) -o $@

# bin/mpi-api-check: libpicard_mpi from a program with its own MPI, which
# tests/mpi/test_mpi.c runs under mpirun.
$(BIN)/mpi-api-check: $(BUILD)/tests/mpi/api_check.o $(SHLIB) $(MPI_SHLIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter %.o,$^) $(LDFLAGS) -lpicard_mpi $(LDLIBS) $(MPI_LIBS) -o $@

$(BUILD)/tests/mpi/api_check.o: tests/mpi/api_check.c | deps
	@mkdir -p $(@D)
	@echo "  MPICC   $@"
	$(Q)$(CC) $(CFLAGS) $(MPI_CFLAGS) -c $< -o $@
endif

# ---- GPU linear solvers (src/linsolve/gpu/, GitHub issue 21) -------------------
# The tridiagonal solvers (Thomas, checkerboard Thomas in global and
# shared memory, PCR, the cuSPARSE anchor) and the batched Krylov solvers
# (SpMV and its tuner, CG and BiCGStab with their preconditioners, the
# cuSPARSE SpMV and cuSPARSE + cuBLAS CG anchors) are in the library; the
# tridiagonal host reference and batch memory serve the test binary and
# bin/bench-tridiag.
TRIDIAG_AID_OBJS := $(TRIDIAG_AID_SRCS:src/%.c=$(BUILD)/src/%.o)

# The tests also call the programs' shared code directly (the option parser
# and the --init reader in test_fuzz_regress.c), bench/stiff's host
# Rodas5P and msbdf reference (test_rodas.c) and cuRAND's host Philox
# generator (tests/independent.c draws the documented ensemble itself).
$(BIN)/picard-tests: $(TEST_OBJS) $(TEST_CXX_OBJS) $(CLI_COMMON) $(STIFF_TEST_OBJS) $(TRIDIAG_AID_OBJS) \
		     $(SHLIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(TEST_OBJS) $(TEST_CXX_OBJS) $(CLI_COMMON) $(STIFF_TEST_OBJS) $(TRIDIAG_AID_OBJS) \
		$(LDFLAGS) $(LDLIBS) \
		-lcurand -lcudart_static -lrt -lcriterion -lstdc++ -o $@
$(BUILD)/tests/reference/test_rodas.o: CFLAGS += -Ibench/stiff
$(BUILD)/tests/schemes/test_radau5.o: CFLAGS += -Itests/schemes
$(BUILD)/tests/schemes/test_small_lu.o: CFLAGS += -Itests/schemes
$(TEST_CXX_OBJS): $(BUILD)/tests/%.o: tests/%.cpp | deps
	@mkdir -p $(@D)
	@echo "  CXX     $@"
	$(Q)$(CXX) $(MODEL_CXXFLAGS) -I$(<D) -c $< -o $@

# ---- benchmarks -----------------------------------------------------------------
# bench/NAME/bench_NAME.c holds the main of bin/bench-NAME, on the library
# and the programs' shared code (see bench/README.md); make gpu-bundle
# builds them too. bench/compare/ has rules of its own (below).
BENCH_PROGS  := $(filter-out compare stiff,$(patsubst bench/%/,%,$(sort $(dir $(wildcard bench/*/bench_*.c)))))
.PHONY: bench
bench: all $(BENCH_PROGS:%=$(BIN)/bench-%)

$(BUILD)/bench/%.o: bench/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Isrc/cli -c $< -o $@

.SECONDARY: $(foreach b,$(BENCH_PROGS),$(BUILD)/bench/$(b)/bench_$(b).o)
# bench-sweep's sweep as a shared object too: bench/sweep/sweep.py runs C's
# sweep and Python's in one process, taking turns
bench: $(BIN)/bench-sweep.so
$(BIN)/bench-sweep.so: $(BUILD)/bench/sweep/bench_sweep.o $(SHLIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -shared $< $(LDFLAGS) -L$(LIBDIR) -lpicard -o $@

.SECONDEXPANSION:
$(BIN)/bench-%: $(BUILD)/bench/%/bench_$$*.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

# bin/bench-startup times a GPU process's start step by step: it links the
# driver and the static runtime alone, so that each CUDA library picard
# links is loaded and timed by itself (bench/startup/bench_startup.c).
$(BIN)/bench-startup: $(BUILD)/bench/startup/bench_startup.o
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda -lcudart_static -ldl -lpthread \
		-lrt -o $@

# ---- plots ------------------------------------------------------------------------
# The figures of a benchmark run from its CSVs (plots/*.gp, gnuplot):
# make plots RESULTS=bench/results/DIR (default: the newest H100 run).
RESULTS ?= $(lastword $(sort $(wildcard bench/results/h100-*/suite)))
.PHONY: plots
plots:
	@src/mk/ensure-deps.sh plots
	@plots/make-plots.sh $(RESULTS)

# ---- chemistry models ---------------------------------------------------------
# models/h2o2.cu and the other generated chemistry models, rewritten from
# their mechanisms by the converter with the options in
# tools/mechanisms/generate.sh (docs/chemistry.md); the chem tests check
# that the shipped files are what it writes.
.PHONY: chem-models
chem-models: deps
	@tools/mechanisms/generate.sh models

# ---- Python -------------------------------------------------------------------
# python/picard, ctypes over libpicard.so: nothing to compile. It records
# where the library is (python/picard/_libdir.txt), so that a pip install of
# python/ finds it from anywhere (python/README.md).
.PHONY: python
python: deps $(SHLIB)
	@echo '$(abspath $(LIBDIR))' > python/picard/_libdir.txt
	@echo "  PYTHON  python/picard over $(SHLIB) (install: $(PYTHON) -m pip install --no-build-isolation ./python)"

# ---- tests ------------------------------------------------------------------
# The CLI tests find picard-run beside the test binary; the Python tests
# (tests/python, pytest) the source tree's package and library.
test: all python
	$(BIN)/picard-tests $(TEST_ARGS)
	$(PYTHON) -m pytest -q tests/python $(PYTEST_ARGS)

# ---- sanitizers ---------------------------------------------------------------
# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# into build-asan/ and bin-asan/ (the normal build is left alone), then run.
# ASan and LSan reports of every process (the test binary, the test
# processes Criterion forks, the picard-run it spawns) go to files
# build-asan/sanitizer/log.PID; gcc's UBSan ignores log_path when combined
# with ASan and prints on stderr, so it halts at its first report with exit
# status 97, which no test expects, and its "runtime error:" lines are looked
# for in the suite's output. Any report fails the target. tests/lsan.supp
# silences leaks inside third-party libraries only (its Criterion entry
# needs the full stacks of fast_unwind_on_malloc=0); protect_shadow_gap=0
# lets the CUDA driver map its memory on a GPU machine; a malloc too large
# returns NULL, as without ASan, so the out-of-memory paths are what runs.
SAN_DIR := build-asan/sanitizer
test-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan BIN=bin-asan LIBDIR=lib-asan SANITIZE=address,undefined,float-cast-overflow all
	$(Q)rm -rf $(SAN_DIR) && mkdir -p $(SAN_DIR)/reports
	$(Q){ ASAN_OPTIONS=protect_shadow_gap=0:allocator_may_return_null=1:detect_leaks=1:fast_unwind_on_malloc=0:exitcode=97:log_path=$(CURDIR)/$(SAN_DIR)/reports/log \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=97 \
	  bin-asan/picard-tests $(TEST_ARGS); echo $$? > $(SAN_DIR)/status; } 2>&1 | tee $(SAN_DIR)/output.txt
	$(Q)if [ -n "$$(ls -A $(SAN_DIR)/reports)" ] || grep -q 'runtime error:' $(SAN_DIR)/output.txt; then \
		cat $(SAN_DIR)/reports/* 2>/dev/null; grep -A20 'runtime error:' $(SAN_DIR)/output.txt; \
		echo "test-asan: sanitizer reports (in $(SAN_DIR)/)"; exit 1; \
	fi; \
	status=$$(cat $(SAN_DIR)/status); [ "$$status" = 0 ] || exit $$status; \
	echo "test-asan: passed, no sanitizer reports"

# ---- fuzzing --------------------------------------------------------------------
# libFuzzer targets tests/fuzz/fuzz_NAME.c (clang, with ASan and UBSan) on
# the CLI sources they test, linked against the normal $(LIB). Each runs for
# FUZZ_SECONDS from its committed seeds tests/fuzz/corpus/NAME/ (and the
# dictionary tests/fuzz/NAME.dict if there is one); the inputs it finds
# accumulate in $(BUILD)/fuzz/corpus/NAME/ and a crashing input lands in
# $(BUILD)/fuzz/crashes/, failing the target.
FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 60
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   := -g -O1 -std=c11 -Wall -Wextra $(INC) -Isrc/cli \
		 -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP
FUZZ_TARGETS  := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS     := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_CLI_OBJS := $(patsubst src/cli/%.c,$(BUILD)/fuzz/obj/cli/%.o,\
		 src/cli/diag.c src/cli/parse.c src/cli/options.c $(wildcard src/cli/options/*.c) \
		 src/cli/init_file.c src/cli/output.c src/cli/temp_files.c)
.SECONDARY: $(FUZZ_CLI_OBJS) $(FUZZ_TARGETS:%=$(BUILD)/fuzz/obj/fuzz_%.o)

# clang with libFuzzer's runtime, or what to install.
fuzz-cc:
	@echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
		$(FUZZ_CC) -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null || { \
		echo "make fuzz: $(FUZZ_CC) cannot link -fsanitize=fuzzer; on Debian 12:" \
		     "apt-get install clang libclang-rt-14-dev (or FUZZ_CC=clang-NN)"; exit 1; }

$(BUILD)/fuzz/obj/%.o: tests/fuzz/%.c | fuzz-cc
	@mkdir -p $(@D)
	@echo "  CLANG   $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(BUILD)/fuzz/obj/cli/%.o: src/cli/%.c | fuzz-cc
	@mkdir -p $(@D)
	@echo "  CLANG   $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

# The gcc-built $(LIB) needs gcc's OpenMP runtime, not clang's.
$(FUZZ_BINS): $(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/fuzz_%.o $(FUZZ_CLI_OBJS) $(LIB)
	@echo "  LD      $@"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $^ $(filter-out -fopenmp,$(LDFLAGS)) \
		-lgomp $(LIB_LDLIBS) -o $@

fuzz: deps $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
		mkdir -p $(BUILD)/fuzz/corpus/$$t $(BUILD)/fuzz/crashes; \
		echo "  FUZZ    $$t for $(FUZZ_SECONDS) s (log: $(BUILD)/fuzz/$$t.log)"; \
		if ! $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/crashes/$$t- $$dict \
			$(BUILD)/fuzz/corpus/$$t tests/fuzz/corpus/$$t > $(BUILD)/fuzz/$$t.log 2>&1; then \
			tail -n 60 $(BUILD)/fuzz/$$t.log; echo "fuzz: $$t failed (input in $(BUILD)/fuzz/crashes/)"; \
			exit 1; \
		fi; \
		grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' $(BUILD)/fuzz/$$t.log \
			| sed 's/^/          /'; \
	done

# ---- device bundle --------------------------------------------------------
# The GPU machine has the CUDA toolkit but no GSL or Criterion: unpack their
# Debian packages next to the binaries (bin/lib, found through RPATH).
# bench-cvode (where SUNDIALS was found) needs libsundials_cvode too.
gpu-bundle: all bench
	@src/mk/bundle-libs.sh $(BIN)/lib $(BIN)/picard-run $(BIN)/picard-tests $(SHLIB) \
		$$(ls $(BIN)/bench-cvode $(BIN)/bench-krylov 2>/dev/null)

# bin/ (the gpu-bundle) and the shared library as one archive for the
# device tool's carry, which takes 64 MiB with a kernel cache beside it:
# the bench programs hold the same static library, and an xz dictionary
# larger than one stores it once (a multi-threaded xz would cut the stream
# into blocks and lose that): 17 MB. On the GPU machine: tar -xJf
# .xfer/bin.tar.xz
gpu-carry: gpu-bundle
	@mkdir -p .xfer
	tar -cf - $(BIN) $(SHLIB) $(if $(MPI_FOUND),$(MPI_SHLIB) $(MPI_PLUGIN)) | \
		xz -T1 --lzma2=preset=6,dict=64MiB > .xfer/bin.tar.xz
	@ls -l .xfer/bin.tar.xz

# ---- baselines (bench/compare/, GitHub issue 6) ----------------------------------
# bin/bench-rk: per-thread Runge-Kutta ensembles on the GPU (rk_ensemble.cuh,
# every model x method x precision instantiated at compile time); bin/bench-cpu:
# GSL rk8pd/rkf45 and explicit Euler with OpenMP. Both link $(LIB) for the
# ensemble and the reference. Not part of all: the kernels take a while.
# The model structs come from every models/*.cu, included with
# PICARD_MODEL_STRUCT_ONLY into a generated header (no registry symbols),
# all but the semi-linear ones (a file that declares an operator `op`:
# discretised PDEs of hundreds of components, which the compile-time
# per-thread baselines would unroll for many minutes; picard-run's dp5
# and CVODE are their baselines, bench/pde/).
BENCH_MODEL_LIST = $(foreach m,$(MODELS),$(if $(shell grep -l 'picard_operator_kind op ' models/$(m).cu),,$(m)))
BENCH_DIR     := $(BUILD)/bench
BENCH_INC     := -I. -Ibench/compare -I$(BENCH_DIR)
BENCH_NVFLAGS := $(NVFLAGS) $(BENCH_INC) -Xcompiler -fopenmp
BENCH_CFLAGS  := $(CFLAGS) $(BENCH_INC)
BENCH_HEADERS := $(BENCH_DIR)/bench_models.h $(BENCH_DIR)/build_flags.h

$(BENCH_DIR)/bench_models.h: FORCE
	@mkdir -p $(@D)
	@{ echo '/* Generated by the Makefile from models/NAME.cu: do not edit. */'; \
	   echo '#define PICARD_MODEL_STRUCT_ONLY'; \
	   for m in $(BENCH_MODEL_LIST); do echo "#include \"models/$$m.cu\""; done; \
	   printf '#define BENCH_MODELS(X)'; for m in $(BENCH_MODEL_LIST); do printf ' X(%s)' $$m; done; \
	   echo; } > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $@"; fi

# The flags the programs were built with, for their CSV headers.
$(BENCH_DIR)/build_flags.h: FORCE
	@mkdir -p $(@D)
	@echo '#define BENCH_BUILD_FLAGS "nvcc $(subst ",\",$(BENCH_NVFLAGS)); cc $(subst ",\",$(BENCH_CFLAGS))"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $@"; fi

$(BENCH_DIR)/%.o: bench/compare/%.cu $(BENCH_HEADERS) | deps
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(BENCH_NVFLAGS) -c $< -o $@

$(BENCH_DIR)/%.o: bench/compare/%.c $(BENCH_HEADERS) | deps
	@echo "  CC      $@"
	$(Q)$(CC) $(BENCH_CFLAGS) -c $< -o $@

$(BIN)/bench-rk: $(BENCH_DIR)/bench_rk.o $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

$(BIN)/bench-cpu: $(BENCH_DIR)/bench_cpu.o $(BENCH_DIR)/bench_cpu_models.o \
		  $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

$(BIN)/bench-picard: $(BENCH_DIR)/bench_picard.o $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

bench: deps $(BIN)/bench-rk $(BIN)/bench-cpu $(BIN)/bench-picard

# bin/bench-tridiag: src/linsolve/gpu/tridiag/'s solvers side by side (issue 21).
$(BENCH_DIR)/linsolve/bench_tridiag.o: bench/linsolve/bench_tridiag.cu $(BENCH_HEADERS) | deps
	@mkdir -p $(@D)
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(BENCH_NVFLAGS) -c $< -o $@

$(BIN)/bench-tridiag: $(BENCH_DIR)/linsolve/bench_tridiag.o $(TRIDIAG_AID_OBJS) \
		      $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

bench: deps $(BIN)/bench-tridiag

# bin/bench-krylov: src/linsolve/gpu/krylov/'s SpMV kernels and CG against cuSPARSE,
# the host CG and, where libviennacl-dev (header-only) is installed,
# ViennaCL's CG on its CUDA and OpenMP backends (one translation unit with
# both: bench/linsolve/viennacl_cg.cu). Without it the bench builds and
# runs without those rows.
VIENNACL_FOUND := $(shell test -f /usr/include/viennacl/linalg/cg.hpp && echo yes)
KRYLOV_BENCH_OBJS := $(BENCH_DIR)/linsolve/bench_krylov.o \
		     $(if $(VIENNACL_FOUND),$(BENCH_DIR)/linsolve/viennacl_cg.o)

$(BENCH_DIR)/linsolve/bench_krylov.o: bench/linsolve/bench_krylov.cu $(BENCH_HEADERS) \
				      $(BENCH_DIR)/viennacl-found | deps
	@mkdir -p $(@D)
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(BENCH_NVFLAGS) -DBENCH_VIENNACL=$(if $(VIENNACL_FOUND),1,0) -c $< -o $@

# ViennaCL 1.7.1's cg_tag leaves a member uninitialised that gcc sees
# through: its warning, not ours.
$(BENCH_DIR)/linsolve/viennacl_cg.o: bench/linsolve/viennacl_cg.cu | deps
	@mkdir -p $(@D)
	@echo "  NVCC    $@ (ViennaCL)"
	$(Q)$(NVCC) $(BENCH_NVFLAGS) -DVIENNACL_WITH_CUDA -DVIENNACL_WITH_OPENMP \
		-Xcompiler -Wno-maybe-uninitialized -c $< -o $@

$(BENCH_DIR)/viennacl-found: FORCE
	@mkdir -p $(@D)
	@echo '$(VIENNACL_FOUND)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(BIN)/bench-krylov: $(KRYLOV_BENCH_OBJS) $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

.PHONY: viennacl-status
viennacl-status:
ifeq ($(VIENNACL_FOUND),yes)
	@echo "  VIENNACL found: bench-krylov compares against ViennaCL's CG (CUDA and OpenMP)"
else
	@echo "  VIENNACL not found (apt-get install libviennacl-dev): bench-krylov runs without ViennaCL"
endif

bench: deps viennacl-status $(BIN)/bench-krylov

# ---- stiff baselines (bench/stiff/, GitHub issue 18) ----------------------------
# bin/bench-rodas: per-thread Rodas5P on the GPU (rodas.cuh, every model
# instantiated by nvcc) and on the host (rodas_host.cpp, the same template
# built by the system C++ compiler with OpenMP; the test suite links it
# too); bin/bench-cvode: SUNDIALS CVODE with OpenMP, built only where
# libsundials-dev is installed (SUNDIALS 6: libsundials_cvode holds the
# serial vector, the dense and band matrices and solvers; needs libc alone, so the
# device bundle gains nothing for it beyond GSL's).
STIFF_INC       := -Ibench/stiff -Isrc/cli
STIFF_C_OBJS    := $(STIFF_DIR)/stiff_common.o $(STIFF_DIR)/bench_cvode.o \
		   $(STIFF_DIR)/bench_radau5.o
SUNDIALS_FOUND  := $(shell test -f /usr/include/cvode/cvode.h && \
		     test -f /usr/include/sunlinsol/sunlinsol_dense.h && echo yes)
SUNDIALS_LDLIBS := -lsundials_cvode

$(STIFF_C_OBJS): $(STIFF_DIR)/%.o: bench/stiff/%.c $(BENCH_HEADERS) | deps
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(BENCH_CFLAGS) $(STIFF_INC) -c $< -o $@

$(STIFF_DIR)/rodas_host.o: bench/stiff/rodas_host.cpp $(BENCH_DIR)/bench_models.h | deps
	@mkdir -p $(@D)
	@echo "  CXX     $@"
	$(Q)$(CXX) $(MODEL_CXXFLAGS) -fopenmp -I. -I$(BENCH_DIR) $(STIFF_INC) -c $< -o $@

$(STIFF_DIR)/bench_rodas.o: bench/stiff/bench_rodas.cu $(BENCH_HEADERS) | deps
	@mkdir -p $(@D)
	@echo "  NVCC    $@"
	$(Q)$(NVCC) $(BENCH_NVFLAGS) $(STIFF_INC) -c $< -o $@

$(BIN)/bench-rodas: $(STIFF_DIR)/bench_rodas.o $(STIFF_TEST_OBJS) $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

# bin/bench-radau5: picard's radau5 through the library, measured alike.
$(BIN)/bench-radau5: $(STIFF_DIR)/bench_radau5.o $(STIFF_DIR)/stiff_common.o \
		     $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(LIB_LDLIBS) -o $@

$(BIN)/bench-cvode: $(STIFF_DIR)/bench_cvode.o $(STIFF_DIR)/stiff_common.o \
		    $(BENCH_DIR)/bench_common.o $(CLI_COMMON) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $^ $(LDFLAGS) $(SUNDIALS_LDLIBS) $(LIB_LDLIBS) -o $@

.PHONY: bench-stiff
ifeq ($(SUNDIALS_FOUND),yes)
bench-stiff: deps $(BIN)/bench-rodas $(BIN)/bench-radau5 $(BIN)/bench-cvode
else
bench-stiff: deps $(BIN)/bench-rodas $(BIN)/bench-radau5
	@echo "  SKIP    $(BIN)/bench-cvode: SUNDIALS not found (apt-get install libsundials-dev)"
endif
bench: bench-stiff

bench-check: bench
	$(BIN)/bench-rk --selfcheck

# ---- install: headers, library, programs, pkg-config ------------------------------
# make kernels [ARCH=90] [KERNEL_MODELS="lotka kepler"]: every kernel the
# shipped models may run, compiled by NVRTC for sm_ARCH (no GPU needed),
# into $(BUILD)/kernel-cache/kernels; make install then puts them in
# PREFIX/share/picard/kernels, where an installed picard looks before
# compiling (src/model/jit.c), so its first run of a shipped model compiles
# nothing. Every variant of every model: long on few cores (fisher_kpp's
# radau5, about 3 minutes a variant).
ARCH          ?= 90
KERNEL_MODELS ?= $(MODELS)
KERNEL_CACHE  := $(BUILD)/kernel-cache
.PHONY: kernels
kernels: all
	@echo "  KERNELS sm_$(ARCH) into $(KERNEL_CACHE)/kernels: $(KERNEL_MODELS)"
	$(Q)for m in $(KERNEL_MODELS); do \
		PICARD_JIT_ARCH=$(ARCH) PICARD_JIT_CACHE_DIR=$(KERNEL_CACHE) \
			$(BIN)/picard-run $$m --precompile || exit 1; \
	done

# make install PREFIX=DIR [DESTDIR=STAGE]: include/picard.h and picard_choose.h,
# lib/libpicard.so
# and .a, lib/pkgconfig/picard.pc and bin/picard-* (which find the library
# through RPATH $ORIGIN/../lib); a C program then builds with
# gcc prog.c $(pkg-config --cflags --libs picard) (examples/ensemble.c).
# The headers a model file includes travel inside the library.
PREFIX  ?= /usr/local
install: all
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin
	$(Q)install -m 644 include/picard.h include/picard_choose.h $(DESTDIR)$(PREFIX)/include/
	$(Q)install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	$(Q)install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/
	$(Q)install -m 755 $(PROGRAMS:%=$(BIN)/%) $(DESTDIR)$(PREFIX)/bin/
	$(Q)src/mk/gen-pc.sh $(PREFIX) $(CUDA_HOME) '$(LIB_LDLIBS)' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/picard.pc
	$(Q)if [ -d $(KERNEL_CACHE)/kernels ]; then \
		install -d $(DESTDIR)$(PREFIX)/share/picard/kernels && \
		install -m 644 $(KERNEL_CACHE)/kernels/*.cubin $(DESTDIR)$(PREFIX)/share/picard/kernels/; \
	fi
ifeq ($(MPI_FOUND),yes)
	$(Q)install -m 644 include/picard_mpi.h $(DESTDIR)$(PREFIX)/include/
	$(Q)install -m 644 $(MPI_LIB) $(DESTDIR)$(PREFIX)/lib/
	$(Q)install -m 755 $(MPI_SHLIB) $(MPI_PLUGIN) $(DESTDIR)$(PREFIX)/lib/
	$(Q)src/mk/gen-pc.sh $(PREFIX) $(CUDA_HOME) mpi '$(MPI_CFLAGS)' '$(MPI_LIBS)' \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/picard-mpi.pc
endif

clean:
	rm -rf $(BUILD) $(BIN) $(LIBDIR)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
