/*
   The option readers of src/options/options.h: PETSc's readers, with the option named when a value
   is refused and the values PETSc's parser would misread refused.
*/
#include "options.h"
#include <errno.h>
#include <stdlib.h>

#define Prefix(o) ((o)->prefix ? (o)->prefix : "")

/* the text given for opt: none (not given) is accepted; given without a value, refused when a value is
   needed; an integer refused when PetscInt cannot hold it */
static PetscErrorCode AIJHybridOptionsCheckText(AIJHybridOptionItems PetscOptionsObject, const char opt[], PetscBool needed, PetscBool integer)
{
  const char *text;
  PetscBool   given;
  char       *end;
  long long   n;

  PetscFunctionBegin;
  PetscCall(PetscOptionsFindPair(PetscOptionsObject->options, PetscOptionsObject->prefix, opt, &text, &given));
  if (!given || !needed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(text && text[0], PetscOptionsObject->comm, PETSC_ERR_ARG_WRONG, "Option -%s%s needs a value", Prefix(PetscOptionsObject), opt + 1);
  if (!integer) PetscFunctionReturn(PETSC_SUCCESS);
  errno = 0;
  n     = strtoll(text, &end, 10);
  PetscCheck(*end || (errno != ERANGE && n >= PETSC_MIN_INT && n <= PETSC_MAX_INT), PetscOptionsObject->comm, PETSC_ERR_ARG_OUTOFRANGE, "Invalid value '%s' for -%s%s: beyond the %d-bit integers of this PETSc", text, Prefix(PetscOptionsObject),
             opt + 1, (int)(8 * sizeof(PetscInt)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the value given for opt must be ok: else refused, naming the option, the value given and why */
PetscErrorCode AIJHybridOptionsCheck(AIJHybridOptionItems PetscOptionsObject, const char opt[], PetscBool ok, const char why[])
{
  const char *text;
  PetscBool   given;

  PetscFunctionBegin;
  if (ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsFindPair(PetscOptionsObject->options, PetscOptionsObject->prefix, opt, &text, &given));
  SETERRQ(PetscOptionsObject->comm, PETSC_ERR_ARG_OUTOFRANGE, "Invalid value '%s' for -%s%s: %s", text ? text : "", Prefix(PetscOptionsObject), opt + 1, why);
}

/* PETSc's reader refused the value of opt with error ierr (nothing printed): the same error, naming the option and the value */
static PetscErrorCode AIJHybridOptionsRefused(AIJHybridOptionItems PetscOptionsObject, const char opt[], PetscErrorCode ierr)
{
  const char *text;
  const char *specific;
  char        why[512];
  PetscBool   given;

  PetscFunctionBegin;
  if (!ierr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscErrorMessage(ierr, NULL, (void *)&specific)); /* char ** in PETSc 3.18, const char ** in 3.26 */
  PetscCall(PetscStrncpy(why, specific ? specific : "", sizeof(why)));
  PetscCall(PetscOptionsFindPair(PetscOptionsObject->options, PetscOptionsObject->prefix, opt, &text, &given));
  SETERRQ(PetscOptionsObject->comm, ierr, "Invalid value '%s' for -%s%s: %s", text ? text : "", Prefix(PetscOptionsObject), opt + 1, why);
}

/* call PETSc's reader with errors returned, not printed; then name the option in its error */
#define AIJHybridOptionsCall(opt, call) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(AIJHybridOptionsRefused(PetscOptionsObject, opt, ierr_)); \
  } while (0)

/* items for reading the options of obj (its prefix and options database) with the readers, where no
   PetscOptionsBegin() is open, listing nothing under -help (a pass that prints no help: count 1) */
PetscErrorCode AIJHybridOptionsQuiet(PetscObject obj, AIJHybridOptionItemsStruct *items)
{
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(items, sizeof(*items)));
  PetscCall(PetscObjectGetOptionsPrefix(obj, &prefix));
  PetscCall(PetscObjectGetOptions(obj, &items->options));
  items->prefix    = (char *)prefix; /* read only */
  items->comm      = PetscObjectComm(obj);
  items->count     = 1;
  items->printhelp = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionsRangeInt_Private(AIJHybridOptionItems PetscOptionsObject, const char opt[], const char text[], const char man[], PetscInt cur, PetscInt *value, PetscBool *set, PetscInt lb, PetscInt ub)
{
  PetscFunctionBegin;
  PetscCall(AIJHybridOptionsCheckText(PetscOptionsObject, opt, PETSC_TRUE, PETSC_TRUE));
  AIJHybridOptionsCall(opt, PetscOptionsRangeInt(opt, text, man, cur, value, set, lb, ub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionsRangeReal_Private(AIJHybridOptionItems PetscOptionsObject, const char opt[], const char text[], const char man[], PetscReal cur, PetscReal *value, PetscBool *set, PetscReal lb, PetscReal ub)
{
  PetscBool given;

  PetscFunctionBegin;
  PetscCall(AIJHybridOptionsCheckText(PetscOptionsObject, opt, PETSC_TRUE, PETSC_FALSE));
#if PETSC_VERSION_LT(3, 21, 0) /* no PetscOptionsRangeReal(): the range checked here, as PETSc's does */
  AIJHybridOptionsCall(opt, PetscOptionsReal(opt, text, man, cur, value, &given));
  if (given && !(*value >= lb && *value <= ub)) {
    char why[128];

    if (ub >= PETSC_MAX_REAL) PetscCall(PetscSNPrintf(why, sizeof(why), "not a finite real >= %g", (double)lb));
    else PetscCall(PetscSNPrintf(why, sizeof(why), "not in [%g, %g]", (double)lb, (double)ub));
    PetscCall(AIJHybridOptionsCheck(PetscOptionsObject, opt, PETSC_FALSE, why));
  }
#else
  AIJHybridOptionsCall(opt, PetscOptionsRangeReal(opt, text, man, cur, value, &given, lb, ub));
#endif
  if (set) *set = given;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionsBool_Private(AIJHybridOptionItems PetscOptionsObject, const char opt[], const char text[], const char man[], PetscBool cur, PetscBool *value, PetscBool *set)
{
  PetscFunctionBegin;
  AIJHybridOptionsCall(opt, PetscOptionsBool(opt, text, man, cur, value, set)); /* no value: true, as PETSc */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionsEnum_Private(AIJHybridOptionItems PetscOptionsObject, const char opt[], const char text[], const char man[], const char *const *list, PetscEnum cur, PetscEnum *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(AIJHybridOptionsCheckText(PetscOptionsObject, opt, PETSC_TRUE, PETSC_FALSE));
  AIJHybridOptionsCall(opt, PetscOptionsEnum(opt, text, man, list, cur, value, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}
