/*
   The raw text of the numeric -mat_aijhybrid_* options, checked before PETSc parses it: PETSc's
   parser names neither the option nor what it accepts ("Input string abc has no integer value"), and
   turns an integer beyond the range of long into LONG_MAX and then into a PetscInt that may be
   negative (-mat_aijhybrid_num_threads 99999999999999999999 would mean "the OpenMP default").
   Here a value that is not a number, not finite, or out of PetscInt's range, is an error naming the option
   (with the matrix's prefix) and its valid values. The ranges themselves are checked by the Set
   functions (src/mat/options.c), whose messages name the option as well.
*/
#include "../aijhybrid.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

typedef struct {
  const char *name;    /* without the leading '-' and the prefix */
  PetscBool   integer; /* PetscInt, else PetscReal */
  const char *valid;   /* what it accepts, for the message */
} AIJHybridNumericOption;

static const AIJHybridNumericOption AIJHybridNumericOptions[] = {
  {"mat_aijhybrid_num_threads",      PETSC_TRUE,  "an integer from 1 to 4096, or -1 (PETSC_DECIDE) for the default"},
  {"mat_aijhybrid_row_cost",         PETSC_FALSE, "a finite real >= 0"                                                },
  {"mat_aijhybrid_diffusion_tol",    PETSC_FALSE, "a finite real >= 0"                                                },
  {"mat_aijhybrid_diffusion_max_it", PETSC_TRUE,  "an integer >= 0"                                                   },
  {"mat_aijhybrid_task_share",       PETSC_FALSE, "a real from 0 to 1, or -1 to size it from measured times"          },
  {"mat_aijhybrid_prefetch",         PETSC_TRUE,  "an integer from 0 (none) to 1048576 nonzeros, or -1 for measured"  },
  {"mat_aijhybrid_node_size",        PETSC_TRUE,  "an integer >= 1, or 0 for the nodes MPI_COMM_TYPE_SHARED finds"    },
};

/* the words PETSc's option parser accepts for a number */
static PetscErrorCode IsKeyword(const char *s, PetscBool *kw)
{
  const char *words[] = {"PETSC_DEFAULT", "DEFAULT", "PETSC_DECIDE", "DECIDE"};

  PetscFunctionBegin;
  *kw = PETSC_FALSE;
  for (size_t k = 0; k < sizeof(words) / sizeof(words[0]) && !*kw; k++) PetscCall(PetscStrcasecmp(s, words[k], kw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridCheckOptionValues(Mat A)
{
  const char *prefix = ((PetscObject)A)->prefix;
  char        name[256], value[256];

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(AIJHybridNumericOptions) / sizeof(AIJHybridNumericOptions[0]); k++) {
    const AIJHybridNumericOption *o = &AIJHybridNumericOptions[k];
    PetscBool                     set, kw, ok;
    char                         *end;

    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", o->name));
    PetscCall(PetscOptionsGetString(((PetscObject)A)->options, prefix, name, value, sizeof(value), &set));
    if (!set) continue;
    PetscCheck(value[0], PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Option -%s%s needs a value: %s", prefix ? prefix : "", o->name, o->valid);
    PetscCall(IsKeyword(value, &kw));
    if (kw) continue;
    errno = 0;
    if (o->integer) {
      long long v = strtoll(value, &end, 10);
      ok          = (PetscBool)(*end == '\0' && end != value && errno != ERANGE && v >= PETSC_MIN_INT && v <= PETSC_MAX_INT);
    } else {
      const double v = strtod(value, &end);
      ok             = (PetscBool)(*end == '\0' && end != value && isfinite(v)); /* PETSc 3.26 refuses inf itself, without naming the option */
    }
    PetscCheck(ok, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid value '%s' for -%s%s: expected %s", value, prefix ? prefix : "", o->name, o->valid);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
