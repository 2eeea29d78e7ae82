/*
   The CM-RCM ordering as a PETSc MatOrderingType, "cmrcm" (-pc_factor_mat_ordering_type cmrcm,
   -sub_pc_factor_mat_ordering_type cmrcm with PCBJACOBI). The ordering itself is the pure
   function of cmrcm.c.
*/
#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/petscimpl.h>
#include "cmrcm.h"
#include "factor.h"
#include "../options/options.h"

PetscLogEvent MATAIJHYBRID_Ordering;

static PetscInt AIJHybridCMRCMColors = AIJHYBRID_CMRCM_DEFAULT_COLORS;

/*@
  MatAIJHybridSetCMRCMColors - Sets the number of colors of the `MATORDERINGCMRCM` ordering ("cmrcm")
  used where the option `-mat_ordering_cmrcm_colors` is not given

  Not Collective

  Input Parameter:
. ncolors - number of colors, at least 1, or `PETSC_DEFAULT` for the package's default (24)

  Options Database Key:
. -mat_ordering_cmrcm_colors <ncolors> - colors for the orderings of the matrices this option reaches
  (read with the options prefix of the matrix being ordered, then without one)

  Level: intermediate

  Notes:
  More colors give an incomplete factorization closer to the one of the RCM ordering (fewer
  iterations), with narrower levels in the triangular solves: a factor of the reordered
  matrix without fill (ILU(0), ICC(0)) has as many levels in each solve as there are colors. A graph
  whose levels are not independent sets may need more colors than asked; `-info` reports the
  colors used.

.seealso: `MatAIJHybridGetCMRCMColors()`, `MatGetOrdering()`, `PCFactorSetMatOrderingType()`, `MATAIJHYBRID`
@*/
PetscErrorCode MatAIJHybridSetCMRCMColors(PetscInt ncolors)
{
  PetscFunctionBegin;
  if (ncolors == PETSC_DEFAULT || ncolors == PETSC_DECIDE) ncolors = AIJHYBRID_CMRCM_DEFAULT_COLORS;
  PetscCheck(ncolors >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of colors %" PetscInt_FMT " for -mat_ordering_cmrcm_colors: must be >= 1", ncolors);
  AIJHybridCMRCMColors = ncolors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetCMRCMColors - Gets the number of colors of the `MATORDERINGCMRCM` ordering set with
  `MatAIJHybridSetCMRCMColors()` (the default where `-mat_ordering_cmrcm_colors` is not given)

  Not Collective

  Output Parameter:
. ncolors - number of colors

  Level: intermediate

.seealso: `MatAIJHybridSetCMRCMColors()`
@*/
PetscErrorCode MatAIJHybridGetCMRCMColors(PetscInt *ncolors)
{
  PetscFunctionBegin;
  *ncolors = AIJHybridCMRCMColors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the number of colors for ordering mat: -mat_ordering_cmrcm_colors with its options prefix, then
   without one; read each time a matrix is ordered (listed by -help under the ordering's title) */
static PetscErrorCode CMRCMColorsFromOptions(Mat mat, PetscInt *ncolors)
{
  const char *prefix;
  PetscBool   set = PETSC_FALSE;

  PetscFunctionBegin;
  *ncolors = AIJHybridCMRCMColors;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)mat, &prefix));
  for (PetscInt k = 0; k < (prefix ? 2 : 1) && !set; k++) {
    PetscOptionsBegin(PetscObjectComm((PetscObject)mat), k ? NULL : prefix, "CM-RCM ordering options (petsc-aijhybrid)", "Mat");
    PetscCall(AIJHybridOptionsRangeInt("-mat_ordering_cmrcm_colors", "Colors of the CM-RCM ordering (>= 1): more give an ILU/ICC closer to RCM's, with narrower levels in the threaded solves (read with the prefix of the matrix ordered, then without)",
                                       "MatAIJHybridSetCMRCMColors", *ncolors, ncolors, &set, 1, PETSC_MAX_INT));
    PetscOptionsEnd();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatGetOrdering_CMRCM - the MatOrderingType "cmrcm" of a sequential matrix (for PCBJACOBI, the
  diagonal block of each rank): the same permutation for rows and columns
*/
static PetscErrorCode MatGetOrdering_CMRCM(Mat mat, MatOrderingType type, IS *irow, IS *icol)
{
  const PetscInt *ia, *ja;
  PetscInt        m, n, nr, ncolors = AIJHybridCMRCMColors, nused, *perm;
  PetscBool       done;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)mat), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)mat), PETSC_ERR_SUP, "The %s ordering is for sequential matrices (each rank's block with PCBJACOBI)", MATORDERINGCMRCM);
  PetscCall(CMRCMColorsFromOptions(mat, &ncolors));
  PetscCall(MatGetLocalSize(mat, &m, NULL));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Ordering, mat, 0, 0, 0));
  /* like PETSc's orderings, order the inodes (identical rows) of a matrix that has them, keeping
     each together: MatGetOrdering() expands the permutation to rows, and PETSc's inode numeric
     factorization (chosen by the matrix's inodes) assumes it */
  PetscCall(MatGetRowIJ(mat, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  nr = n;
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "The %s ordering needs the row pattern of the matrix (MatGetRowIJ()), which type %s does not give", MATORDERINGCMRCM, ((PetscObject)mat)->type_name);
  PetscCall(PetscMalloc1(n, &perm));
  PetscCall(AIJHybridCMRCM(n, ia, ja, ncolors, perm, NULL, &nused));
  PetscCall(PetscInfo(mat, "CM-RCM ordering of %" PetscInt_FMT " %s: %" PetscInt_FMT " colors asked, %" PetscInt_FMT " used\n", n, n < m ? "inodes" : "rows", ncolors, nused));
  PetscCall(MatRestoreRowIJ(mat, 0, PETSC_FALSE, PETSC_TRUE, &nr, &ia, &ja, &done));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, perm, PETSC_COPY_VALUES, irow));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, perm, PETSC_OWN_POINTER, icol));
  PetscCall(ISSetPermutation(*irow));
  PetscCall(ISSetPermutation(*icol));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Ordering, mat, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridOrderingRegister(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("AIJHybCMRCM", MAT_CLASSID, &MATAIJHYBRID_Ordering));
  PetscCall(MatOrderingRegister(MATORDERINGCMRCM, MatGetOrdering_CMRCM));
  PetscFunctionReturn(PETSC_SUCCESS);
}
