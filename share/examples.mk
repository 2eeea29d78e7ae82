# Builds the examples of petsc-aijhybrid against the installed library: `make install` puts this
# file, as makefile, beside the examples' sources in PREFIX/share/petsc-aijhybrid/examples/.
#
#   make PETSC_DIR=/path/to/petsc PETSC_ARCH=<arch or empty> ex1 ex2
#
# PETSC_DIR names the PETSc the library was built against (Debian's: /usr/lib/petsc); the compiler,
# its flags and PETSc's libraries come from PETSc's lib/petsc/conf/variables, as for any PETSc
# application, and the plugin from the installation this file belongs to (AIJHYBRID_DIR).
# (evaluated here, before the include below changes MAKEFILE_LIST)
AIJHYBRID_DIR := $(or $(AIJHYBRID_DIR),$(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../../..))
PETSC_DIR     ?= /usr/lib/petsc
include $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf/variables

%: %.c
	$(PCC) $(PCC_FLAGS) -fopenmp -I$(AIJHYBRID_DIR)/include $(PETSC_CC_INCLUDES) $< -o $@ \
	  -L$(AIJHYBRID_DIR)/lib -Wl,-rpath,$(AIJHYBRID_DIR)/lib -lpetscaijhybrid -Wl,-rpath,$(PETSC_LIB_DIR) $(PETSC_LIB) -fopenmp
