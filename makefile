# petsc-aijhybrid: build, test, run and install.
#
#   make run           install what is missing, build, compare aij and aijhybrid here (about two minutes; RUN_ARGS=...)
#   make bench         the benchmark suite (CONFIG=full|quick|smoke|<file>, BENCH_OUT=dir, BENCH_ARGS=...)
#   make test          install what is missing, build, run every test (pytest under mpiexec)
#   make test-flavours the same builds and a test subset against PETSc complex / 64-bit / debug
#   make test-harness  PETSc's KSP tutorials through its harness with -mat_type aijhybrid (test-harness-sf: with -sf_type nodeaware)
#   make test-nodes    as root: 4 emulated hosts on this machine, the node-aware exchange counted on the wire, the model (docs/nodes.md)
#   make               build the library, the examples, the unit tests and PETSc's snes ex5 (the benchmark's SNES runs)
#   make install PREFIX=/opt/aijhybrid
#   make manpages      the manual pages docs/manual/ from the /*@ ... @*/ comments (tests/test_manpages.py checks them)
#   make format        clang-format-16 with .clang-format (PETSc's style) over the C sources; make check-format checks
#
# PETSc is found from PETSC_DIR/PETSC_ARCH; when unset, Debian's /usr/lib/petsc, then pkg-config.

SHELL      := /bin/bash
TOP        := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON     ?= /usr/bin/python3
PYTHON_AH  := $(PYTHON)
PREFIX     ?= /usr/local
# where make install puts the Python package (Spack passes its Python's site-packages)
PYSITE     ?= $(PREFIX)/lib/python3/dist-packages
BUILD      ?= $(TOP)/build

# mpiexec as root, and more ranks than cores in the tests (correctness runs only)
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

ifeq ($(strip $(PETSC_DIR)),)
  ifneq ($(wildcard /usr/lib/petsc/lib/petsc/conf/variables),)
    PETSC_DIR := /usr/lib/petsc
  else
    PETSC_DIR := $(shell pkg-config --variable=prefix PETSc 2>/dev/null)
  endif
endif
PETSC_CONF := $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf/variables
ifneq ($(wildcard $(PETSC_CONF)),)
  include $(PETSC_CONF)
  PETSC_VERSION_H := $(firstword $(wildcard $(PETSC_DIR)/include/petscversion.h $(PETSC_DIR)/$(PETSC_ARCH)/include/petscversion.h))
  PETSC_VERSION   := $(shell awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{printf "%s%s", sep, $$3; sep="."}' $(PETSC_VERSION_H))
  PETSC_MINOR     := $(word 2,$(subst ., ,$(PETSC_VERSION)))
  HAVE_PETSC      := yes
  PYTHON          := $(PYTHON_AH)
endif

export PETSC_DIR PETSC_ARCH

CFLAGS_WARN := -Wall -Wextra -Wno-unused-parameter
OPENMP      := -fopenmp
CPPFLAGS_AH := -I$(TOP)/include -I$(TOP)/src $(PETSC_CC_INCLUDES)
# -falign-loops=64: the CSR row loop must not straddle a fetch block; unaligned, the same
# instructions ran about 10% slower than PETSc's MatMult_SeqAIJ on AMD EPYC (docs/internals.md, Build)
# -ffp-contract=off: a * x + y stays two roundings (no fused multiply-add where the target has one),
# as in PETSc's own kernels and BLAS: products and vector operations equal PETSc's bit for bit
CFLAGS_AH   := $(PCC_FLAGS) -O3 -falign-loops=64 -ffp-contract=off -fPIC $(OPENMP) $(CFLAGS_WARN) $(CFLAGS)
LIBPETSC    := -Wl,-rpath,$(PETSC_LIB_DIR) $(PETSC_LIB)
LIBDIR      := $(BUILD)/lib
LIBNAME     := $(LIBDIR)/libpetscaijhybrid.so
LINK_AH     := -L$(LIBDIR) -Wl,-rpath,$(LIBDIR) -lpetscaijhybrid $(LIBPETSC) $(OPENMP)

# every C file of src/ and its concern folders (src/<concern>/*.c) is part of the library
SRC := $(wildcard src/*.c src/*/*.c)
OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRC))
HDR := $(wildcard include/*.h src/*.h src/*/*.h src/*/*.inc)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/ex*.c))
# pure unit tests built from their sources (no plugin library): tests/unit/<name>.c
PURE_UNIT := test_partition test_nodeplan test_veckernels test_levels test_cmrcm test_sor test_numeric test_choice test_blocks test_csrentry test_spgemm test_misk
# C tests built against PETSc alone (not linked with the plugin; they load it with -dll_append when asked)
PETSC_UNIT := native_probe native_vectors
UNIT     := $(patsubst %,$(BUILD)/tests/%,$(PURE_UNIT) $(PETSC_UNIT)) $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(filter-out $(patsubst %,tests/unit/%.c,$(PURE_UNIT) $(PETSC_UNIT)),$(wildcard tests/unit/*.c)))

# PETSc's snes tutorial ex5 (Bratu on a DMDA), unmodified, for the benchmark's SNES runs
# (python/aijhybrid_bench/snes.py); part of `all` where PETSc installed its examples (defined
# before `all`: make expands a rule's prerequisites where it reads the rule)
SNES_EX5_SRC := $(PETSC_DIR)/share/petsc/examples/src/snes/tutorials/ex5.c
SNES_EX5     := $(if $(wildcard $(SNES_EX5_SRC)),$(BUILD)/snes/ex5)

.PHONY: all lib examples unit snes-ex5 check-petsc setup run bench test test-flavours test-harness test-harness-sf install clean help format check-format
all: lib examples unit $(SNES_EX5)

check-petsc:
	@if [ -z "$(HAVE_PETSC)" ]; then echo "PETSc not found: set PETSC_DIR (and PETSC_ARCH), or run 'bash share/setup.sh' to install Debian's PETSc" >&2; exit 1; fi
	@if [ "$(PETSC_MINOR)" -lt 18 ] 2>/dev/null; then echo "petsc-aijhybrid needs PETSc >= 3.18; found $(PETSC_VERSION) in $(PETSC_DIR)" >&2; exit 1; fi

lib: check-petsc $(LIBNAME)

$(BUILD)/obj/%.o: src/%.c $(HDR)
	@mkdir -p $(dir $@)
	@echo "  CC   $<"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) -c $< -o $@

# -z nodelete: PetscFinalize() dlcloses a -dll_append library; unloading it would also unload the
# OpenMP runtime it brought in (when neither the program nor libpetsc links one, e.g. PETSc 3.26
# built without OpenMP) under the runtime's idle threads, which then crash at exit.
$(LIBNAME): $(OBJ) makefile
	@mkdir -p $(LIBDIR)
	@echo "  LD   $@"
	@$(PCC) -shared $(OPENMP) -Wl,-soname,libpetscaijhybrid.so -Wl,-z,nodelete -o $@ $(OBJ) $(LIBPETSC)

examples: lib $(EXAMPLES)
$(BUILD)/examples/%: examples/%.c $(LIBNAME) include/petscaijhybrid.h
	@mkdir -p $(dir $@)
	@echo "  CC   $<"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) $< -o $@ $(LINK_AH)

# PETSc's snes tutorial ex5 (SNES_EX5 above), built with PETSc's flags, without the plugin
snes-ex5: check-petsc $(BUILD)/snes/ex5
$(BUILD)/snes/ex5: $(SNES_EX5_SRC)
	@mkdir -p $(dir $@)
	@echo "  CC   $(SNES_EX5_SRC)"
	@$(PCC) $(PETSC_CC_INCLUDES) $(PCC_FLAGS) -O2 $< -o $@ $(LIBPETSC) -lm

unit: lib $(UNIT)
$(BUILD)/tests/test_partition: tests/unit/test_partition.c tests/unit/unitcheck.h src/partition/partition.c src/partition/partition.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_partition.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_partition.c src/partition/partition.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/test_nodeplan: tests/unit/test_nodeplan.c tests/unit/unitcheck.h src/sf/nodeplan.c src/sf/nodeplan.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_nodeplan.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_nodeplan.c src/sf/nodeplan.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/test_veckernels: tests/unit/test_veckernels.c tests/unit/unitcheck.h src/kernels/vec.h src/kernels/vecmap.inc
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_veckernels.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_veckernels.c -o $@ $(LIBPETSC) $(OPENMP)
# the preconditioner concern (src/factor/, src/kernels/trsv.h, sor.h): level schedules and solve kernels, CM-RCM, SOR kernels
$(BUILD)/tests/test_levels: tests/unit/test_levels.c tests/unit/unitcheck.h src/factor/levels.c src/factor/levels.h src/kernels/trsv.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_levels.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_levels.c src/factor/levels.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/test_cmrcm: tests/unit/test_cmrcm.c tests/unit/unitcheck.h src/factor/cmrcm.c src/factor/cmrcm.h src/factor/levels.c src/factor/levels.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_cmrcm.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_cmrcm.c src/factor/cmrcm.c src/factor/levels.c -o $@ $(LIBPETSC) $(OPENMP)
# the numeric factorization (src/kernels/ilu.h, src/factor/numericplan.c): kernels and plans against PETSc's routines, transcribed
$(BUILD)/tests/test_numeric: tests/unit/test_numeric.c tests/unit/unitcheck.h src/kernels/ilu.h src/factor/numericplan.c src/factor/numericplan.h src/factor/levels.c src/factor/levels.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_numeric.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_numeric.c src/factor/numericplan.c src/factor/levels.c -o $@ $(LIBPETSC) $(OPENMP)
# the measured choice (src/tune/choice.c): the rule with made-up timings
$(BUILD)/tests/test_choice: tests/unit/test_choice.c tests/unit/unitcheck.h src/tune/choice.c src/tune/choice.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_choice.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_choice.c src/tune/choice.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/test_blocks: tests/unit/test_blocks.c tests/unit/unitcheck.h src/factor/blocks.c src/factor/blocks.h src/factor/levels.c src/factor/levels.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_blocks.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_blocks.c src/factor/blocks.c src/factor/levels.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/test_sor: tests/unit/test_sor.c tests/unit/unitcheck.h src/kernels/sor.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_sor.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_sor.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/native_probe: tests/unit/native_probe.c
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/native_probe.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) $< -o $@ $(LIBPETSC) -ldl
# the setup concern (src/kernels/csrentry.h): entry-wise kernels of MatAXPY, MatScale, MatDiagonalScale, MatGetDiagonal
$(BUILD)/tests/test_csrentry: tests/unit/test_csrentry.c tests/unit/unitcheck.h src/kernels/csrentry.h src/kernels/vec.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_csrentry.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_csrentry.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/native_vectors: tests/unit/native_vectors.c
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/native_vectors.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) $< -o $@ $(LIBPETSC) -ldl
# the products concern (src/kernels/spgemm.c): row-wise sparse products and transposes
$(BUILD)/tests/test_spgemm: tests/unit/test_spgemm.c tests/unit/unitcheck.h src/kernels/spgemm.c src/kernels/spgemm.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_spgemm.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_spgemm.c src/kernels/spgemm.c -o $@ $(LIBPETSC) $(OPENMP)
# the coarsener's greedy MIS (src/coarsen/miskplan.c): the threaded rounds against the serial sweep
$(BUILD)/tests/test_misk: tests/unit/test_misk.c tests/unit/unitcheck.h src/coarsen/miskplan.c src/coarsen/miskplan.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_misk.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_misk.c src/coarsen/miskplan.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/%: tests/unit/%.c tests/unit/unitcheck.h tests/unit/compareaij.h $(LIBNAME) include/petscaijhybrid.h
	@mkdir -p $(dir $@)
	@echo "  CC   $<"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) $< -o $@ $(LINK_AH)
# the factorization tests share their test matrices (tests/unit/factortest.h)
$(BUILD)/tests/factor_solves $(BUILD)/tests/numeric_factor $(BUILD)/tests/factor_blocks: tests/unit/factortest.h

setup:
	@bash $(TOP)/share/setup.sh

# the time make run prints starts after the installs (share/setup.sh): the build and the job
run: setup
	@t0=$$(date +%s); $(MAKE) --no-print-directory -C $(TOP) lib && $(PYTHON) $(TOP)/share/run.py $(BUILD) --started $$t0 $(RUN_ARGS)

CONFIG    ?= full
BENCH_OUT ?= $(BUILD)/bench
bench: setup
	@$(MAKE) --no-print-directory -C $(TOP) lib $(if $(SNES_EX5),snes-ex5)
	cd $(TOP) && AIJHYBRID_BUILD=$(BUILD) PYTHONPATH=$(TOP)/python $(PYTHON) -m aijhybrid_bench --config $(CONFIG) --out $(BENCH_OUT) $(BENCH_ARGS)

test: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && OMPI_MCA_rmaps_base_oversubscribe=1 AIJHYBRID_BUILD=$(BUILD) AIJHYBRID_PYTHON=$(PYTHON) PYTHONPATH=$(TOP)/python $(PYTHON) -m pytest -ra tests $(PYTEST_ARGS)

# the other PETSc flavours (complex, 64-bit indices, debug): apt-installs them, one build each in
# build/flavours/<name>; FLAVOURS="complex int64" for a selection (see share/flavours.sh)
test-flavours:
	@PYTHON=$(PYTHON) bash $(TOP)/share/flavours.sh $(FLAVOURS)

test-harness: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && $(PYTHON) tests/harness/harness.py --lib $(LIBNAME) --search 'ksp_ksp_tutorials-*' --search 'snes_tutorials-*' --json $(BUILD)/harness-ksp-snes.json

# the PetscSF type nodeaware through PETSc's own tests: its SF tests, the VecScatter tests of
# src/vec/vec/tests, the KSP and SNES tutorials, with -sf_type nodeaware -sf_nodeaware_node_size 2
# against -sf_type basic (tests/harness/harness.py --inject sf; about an hour on 2 cores)
HARNESS_SF_VEC := 2 4 5 6 7 8 9 10 11 12 13 14 17 22 23 24 25 33 44 45
HARNESS_SF_SEARCH := --search 'vec_is_sf_tests-*' $(foreach e,$(HARNESS_SF_VEC),--search 'vec_vec_tests-ex$(e)_*') --search 'ksp_ksp_tutorials-*' --search 'snes_tutorials-*'
test-harness-sf: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && $(PYTHON) tests/harness/harness.py --inject sf --lib $(LIBNAME) --no-examples $(HARNESS_SF_SEARCH) --json $(BUILD)/harness-sf.json

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(LIBNAME) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/petscaijhybrid.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@PETSC_LIB_DIR@|$(PETSC_LIB_DIR)|g' -e 's|@VERSION@|$(shell awk '/define PETSCAIJHYBRID_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $$3; sep="."}' include/petscaijhybrid.h)|g' \
	    share/petscaijhybrid.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/petscaijhybrid.pc
	install -d $(DESTDIR)$(PREFIX)/share/petsc-aijhybrid/examples
	install -m 644 examples/*.c $(DESTDIR)$(PREFIX)/share/petsc-aijhybrid/examples/
	install -m 644 share/examples.mk $(DESTDIR)$(PREFIX)/share/petsc-aijhybrid/examples/makefile
	$(eval PYDIR := $(DESTDIR)$(PYSITE)/petsc_aijhybrid)
	install -d $(PYDIR)
	install -m 644 python/petsc_aijhybrid/*.py $(PYDIR)/
	echo 'LIBRARY = "$(PREFIX)/lib/libpetscaijhybrid.so"' > $(PYDIR)/_install.py
	$(eval BENCHDIR := $(DESTDIR)$(PYSITE)/aijhybrid_bench)
	install -d $(BENCHDIR)/data $(BENCHDIR)/matrices
	install -m 644 python/aijhybrid_bench/*.py $(BENCHDIR)/
	install -m 644 share/bench/*.json share/bench/stream.c $(BENCHDIR)/data/
	install -m 644 python/aijhybrid_bench/matrices/*.py $(BENCHDIR)/matrices/

clean:
	rm -rf $(BUILD)

# PETSc's C style (.clang-format); every C source, header and included kernel of the tree
CLANG_FORMAT ?= clang-format-16
FORMAT_SRC = $(shell cd $(TOP) && git ls-files '*.c' '*.h' '*.inc' 2>/dev/null || find src include tests examples share -name '*.[ch]' -o -name '*.inc')
format:
	cd $(TOP) && $(CLANG_FORMAT) -i $(FORMAT_SRC)
check-format:
	cd $(TOP) && $(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRC)

help:
	@sed -n '1,13p' makefile

# ---- hardening (share/sanitizers/README.md): sanitizers, memory checker, race detector, fuzzing
#   make test-asan        plugin, examples and C tests built with -fsanitize=address,undefined (build/asan), run at 1 and 2 ranks x 2 threads
#   make test-valgrind    memcheck on the examples and the C stress test at 1 and 2 ranks x 2 threads; PETSc -malloc_debug -malloc_dump
#   make test-races       clang + ThreadSanitizer + libomp/archer build (build/tsan): the threaded products, task mode at 2 ranks
#   make test-sanitizers  all three (SANITIZER_ARGS=--ci: the subset CI runs, the stress test and the examples)
#   make fuzz             long property-based run (FUZZ_EXAMPLES=N, FUZZ_RANKS="1 2 4"); a quick fixed-seed run is in make test
SANITIZE_ASAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SANITIZE_TSAN := -fsanitize=thread -fno-omit-frame-pointer
FUZZ_EXAMPLES ?= 400
FUZZ_RANKS    ?= 1 2 4
.PHONY: setup-hardening asan tsan test-asan test-valgrind test-races test-sanitizers fuzz
asan: check-petsc
	@$(MAKE) --no-print-directory -C $(TOP) all BUILD=$(TOP)/build/asan PCC="$(PCC) $(SANITIZE_ASAN)" CFLAGS="-O1 -g"
tsan: check-petsc
	@$(MAKE) --no-print-directory -C $(TOP) all BUILD=$(TOP)/build/tsan PCC="OMPI_CC=clang $(PCC) $(SANITIZE_TSAN)" CFLAGS="-O1 -g"
setup-hardening:
	@bash $(TOP)/share/setup.sh hardening
test-asan: setup-hardening asan
	$(PYTHON) $(TOP)/share/sanitizers/sanitize.py asan --build $(TOP)/build/asan $(SANITIZER_ARGS)
test-valgrind: setup-hardening
	@$(MAKE) --no-print-directory -C $(TOP) all
	$(PYTHON) $(TOP)/share/sanitizers/sanitize.py valgrind --build $(BUILD) $(SANITIZER_ARGS)
test-races: setup-hardening tsan
	$(PYTHON) $(TOP)/share/sanitizers/sanitize.py races --build $(TOP)/build/tsan $(SANITIZER_ARGS)
test-sanitizers: test-asan test-valgrind test-races
fuzz: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && AIJHYBRID_BUILD=$(BUILD) $(PYTHON) tests/fuzz_driver.py --examples $(FUZZ_EXAMPLES) --ranks $(FUZZ_RANKS) $(FUZZ_ARGS)

# ---- several nodes on one machine (docs/nodes.md), as root: emulated hosts (network + UTS namespaces on a
# private bridge, a tc rate limit per host), Open MPI launching ranks into them through share/nodes/agent.sh
#   make test-nodes    PETSc's SF tests across the hosts; MatMult and CG + Jacobi of the benchmark matrices with basic
#                      and nodeaware PetscSFs at 4 hosts x {2x1, 1x2}, counted on the wire against the plan and timed
#                      at two rates; the performance model fitted and validated (NODES_ARGS: --rate 1gbit --slow-rate
#                      100mbit --hosts 4 ...); result in $(NODES_OUT)/nodes.json. Refuses (exit 2) without root or namespaces.
#   make test-slurm    the share/slurm/ templates under a local SLURM whose nodes are the emulated hosts (SLURM_ARGS)
NODES_OUT  ?= $(BUILD)/nodes
NODES_ARGS ?=
SLURM_ARGS ?=
.PHONY: test-nodes test-slurm
test-nodes: setup
	@bash $(TOP)/share/nodes/setup.sh
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && AIJHYBRID_PYTHON=$(PYTHON) $(PYTHON) share/nodes/nodes.py full --build $(BUILD) --json $(NODES_OUT)/nodes.json $(NODES_ARGS)
test-slurm: setup
	@bash $(TOP)/share/nodes/setup.sh slurm
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && AIJHYBRID_PYTHON=$(PYTHON) $(PYTHON) share/nodes/slurm.py --build $(BUILD) --out $(NODES_OUT)/slurm $(SLURM_ARGS)

# ---- records (docs/testing.md, "Records and CI"): every figure the documents quote, regenerated with its provenance
#   make records          every record (tests of every configuration, sanitizers, fuzzing, PETSc's harness,
#                         benchmarks) into share/results/, then the generated blocks of README.md and docs/; needs a clean tree
#   make records BENCH=no               the same without the benchmarks (the long part)
#   make records RECORDS="tests fuzz"   a selection (record names or groups: tests hardening fuzz harness bench)
#   make records BENCH_SCALE=0.1        benchmarks scaled down: a trial under build/records/trial, never quoted
#   make test-versions    PETSc 3.20 and 3.22 from PyPI's sources (built into /opt/petsc-<v> if missing), make test on each, recorded
#   make manpages         the manual pages of docs/manual/ from the sources' manual-page comments
#   make readme           the generated blocks of README.md and docs/ (options table, records) from the tables and records in the tree
BENCH         ?= yes
RECORDS       ?=
RECORDS_ARGS  ?=
.PHONY: records test-versions readme manpages
records: setup setup-hardening
	cd $(TOP) && PYTHON=$(PYTHON) $(PYTHON) share/records/regenerate.py --bench $(BENCH) $(if $(RECORDS),--only $(RECORDS)) $(if $(BENCH_SCALE),--bench-scale $(BENCH_SCALE)) $(RECORDS_ARGS)
test-versions: setup
	cd $(TOP) && PYTHON=$(PYTHON) $(PYTHON) share/records/regenerate.py --only test-3.20 test-3.22 --allow-dirty $(RECORDS_ARGS)
manpages:
	cd $(TOP) && $(PYTHON) share/docs/manpages.py --write
readme: unit
	cd $(TOP) && $(PYTHON) share/docs/options.py --build $(BUILD) --write README.md && $(PYTHON) share/records/readme.py --write
