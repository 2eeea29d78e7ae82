# petsc-aijhybrid: build, test, run and install.
#
#   make run           install what is missing, build, run the main job
#   make test          install what is missing, build, run every test (pytest under mpiexec)
#   make test-flavours the same builds and a test subset against PETSc complex / 64-bit / debug
#   make               build the library, the examples and the unit tests
#   make install PREFIX=/opt/aijhybrid
#
# PETSc is found from PETSC_DIR/PETSC_ARCH; when unset, Debian's /usr/lib/petsc, then pkg-config.

SHELL      := /bin/bash
TOP        := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON     ?= /usr/bin/python3
PYTHON_AH  := $(PYTHON)
PREFIX     ?= /usr/local
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
CFLAGS_AH   := $(PCC_FLAGS) -O3 -fPIC $(OPENMP) $(CFLAGS_WARN) $(CFLAGS)
LIBPETSC    := -Wl,-rpath,$(PETSC_LIB_DIR) $(PETSC_LIB)
LIBDIR      := $(BUILD)/lib
LIBNAME     := $(LIBDIR)/libpetscaijhybrid.so
LINK_AH     := -L$(LIBDIR) -Wl,-rpath,$(LIBDIR) -lpetscaijhybrid $(LIBPETSC) $(OPENMP)

SRC := src/register.c $(wildcard src/mat/*.c) \
       src/partition/partition.c src/exchange/halo.c
OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRC))
HDR := $(wildcard include/*.h src/*.h src/*/*.h)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/ex*.c))
UNIT     := $(BUILD)/tests/test_partition $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(filter-out tests/unit/test_partition.c,$(wildcard tests/unit/*.c)))

.PHONY: all lib examples unit check-petsc setup run test test-flavours test-harness install clean help
all: lib examples unit

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

unit: lib $(UNIT)
$(BUILD)/tests/test_partition: tests/unit/test_partition.c src/partition/partition.c src/partition/partition.h
	@mkdir -p $(dir $@)
	@echo "  CC   tests/unit/test_partition.c"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) tests/unit/test_partition.c src/partition/partition.c -o $@ $(LIBPETSC) $(OPENMP)
$(BUILD)/tests/%: tests/unit/%.c $(LIBNAME) include/petscaijhybrid.h
	@mkdir -p $(dir $@)
	@echo "  CC   $<"
	@$(PCC) $(CPPFLAGS_AH) $(CFLAGS_AH) $< -o $@ $(LINK_AH)

setup:
	@bash $(TOP)/share/setup.sh

run: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	@$(PYTHON) $(TOP)/share/run.py $(BUILD) $(RUN_ARGS)

test: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && OMPI_MCA_rmaps_base_oversubscribe=1 AIJHYBRID_BUILD=$(BUILD) AIJHYBRID_PYTHON=$(PYTHON) PYTHONPATH=$(TOP)/python $(PYTHON) -m pytest -ra tests $(PYTEST_ARGS)

# the other PETSc flavours (complex, 64-bit indices, debug): apt-installs them, one build each in
# build/flavours/<name>; FLAVOURS="complex int64" for a selection (see share/flavours.sh)
test-flavours:
	@PYTHON=$(PYTHON) bash $(TOP)/share/flavours.sh $(FLAVOURS)

test-harness: setup
	@$(MAKE) --no-print-directory -C $(TOP) all
	cd $(TOP) && $(PYTHON) tests/harness/harness.py --lib $(LIBNAME) --search 'ksp_ksp_tutorials-*' --json $(BUILD)/harness-ksp.json

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(LIBNAME) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/petscaijhybrid.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell awk '/define PETSCAIJHYBRID_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $$3; sep="."}' include/petscaijhybrid.h)|g' \
	    share/petscaijhybrid.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/petscaijhybrid.pc
	$(eval PYDIR := $(DESTDIR)$(PREFIX)/lib/python3/dist-packages/petsc_aijhybrid)
	install -d $(PYDIR)
	install -m 644 python/petsc_aijhybrid/*.py $(PYDIR)/
	echo 'LIBRARY = "$(PREFIX)/lib/libpetscaijhybrid.so"' > $(PYDIR)/_install.py

clean:
	rm -rf $(BUILD)

help:
	@sed -n '1,10p' makefile
