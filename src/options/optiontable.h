/*
   Options described once, in a table per type, for every type the package registers
   (-mat_aijhybrid_*, and the prefixes of the other types): src/options/optiontable.c.

   A type describes each of its options in a PetscAIJHybridOption (name, kind, what it accepts,
   default, -help line, Set function) and its family of names in a PetscAIJHybridOptionTable.
   Its SetFromOptions calls PetscAIJHybridOptionsProcess(), which reads every option of the table
   for the object (with its prefix) and refuses, before anything is applied, a value that is not of
   the option's kind or range, and a name of the family that no registered table knows (a
   misspelling), each with a message naming the option and what it accepts; then it lists the
   options for -help. The caller applies the values it returns. Registered tables are also checked
   at PetscFinalize() (an option of a family that no object read is reported) and listed by
   PetscAIJHybridOptionsView() (the README's options table and the manual pages are tested
   against that list).

   How a type joins (one table each; the matrix's is in src/mat/settings.c):
   1. Next to its SetFromOptions: an enum naming its options, a `static const AIJHybridOption
      list[]` (name beginning with the family, kind, range and accepted values outside it, enum list,
      what it accepts, default, -help line, Set function) and a table, e.g.
        const struct AIJHybridOptionTable_s VecHybridOptionTable = {"vec_hybrid_", "<-help heading>",
          "-vec_type hybrid", "VECHYBRID", N, list};
   2. In its SetFromOptions (inside PETSc's PetscObjectOptionsBegin(), which gives
      PetscOptionsObject; a hook outside one opens its own): fill v[k] with the object's current
      values, call AIJHybridOptionsProcess(PetscOptionsObject, (PetscObject)obj, &table, v), then
      its Set function for every v[k].set. Do not read these options with PetscOptionsXxx yourself.
   3. One line in src/register.c: AIJHybridOptionTableRegister(&table) (its names become known
      to the misspelling check of the family, to the PetscFinalize() report and to the list).
   4. Its manual page (the table's manpage) and each Set function's page name every option.
   5. share/docs/options.py --write README.md; tests/test_options_table.py then checks -help (the
      table's select options must make examples/ex1 at 2 ranks create an object that reads them),
      the defaults, the manual pages, bad values and unknown names, with no change to the tests.
*/
#ifndef AIJHYBRID_OPTIONTABLE_H
#define AIJHYBRID_OPTIONTABLE_H

#include "../compat.h"
#include <petscviewer.h>

typedef enum {
  AIJHYBRID_OPTION_INT,  /* PetscInt in [min, max] or one of special[] */
  AIJHYBRID_OPTION_REAL, /* finite PetscReal in [min, max] or one of special[] */
  AIJHYBRID_OPTION_BOOL, /* true/false, yes/no, on/off, 1/0; no value: true */
  AIJHYBRID_OPTION_ENUM  /* one of the names of list (PETSc's enum list: names, type name, prefix, NULL) */
} AIJHybridOptionKind;

typedef struct {
  const char         *name; /* without '-' and the object's prefix, starts with the table's family */
  AIJHybridOptionKind kind;
  PetscReal           min, max; /* INT, REAL: accepted range */
  PetscInt            nspecial; /* INT, REAL: values outside the range also accepted (e.g. -1: measured) */
  PetscReal           special[2];
  const char *const  *list;     /* ENUM */
  const char         *accepts;  /* what it accepts, for messages and the documentation */
  const char         *defaults; /* the default, stated once: its first word is the value -help shows
                                   for a new object, unless the default depends on the run (then a word
                                   that is no value, e.g. "OMP_NUM_THREADS") */
  const char *help;             /* the -help line */
  const char *man;              /* the Set function */
} AIJHybridOption;

typedef struct AIJHybridOptionTable_s {
  const char            *family;  /* common start of the names, e.g. "mat_aijhybrid_" */
  const char            *title;   /* -help heading */
  const char            *select;  /* options that make a program create an object reading them, e.g. "-mat_type aijhybrid" */
  const char            *manpage; /* manual page of the type that lists them, e.g. "MATAIJHYBRID" */
  PetscInt               n;
  const AIJHybridOption *options;
} AIJHybridOptionTable;

typedef struct {
  PetscBool set; /* given in the options database */
  PetscInt  i;   /* INT; ENUM: index in list; BOOL: 0 or 1 */
  PetscReal r;   /* REAL */
} AIJHybridOptionValue;

/* once per table, at package initialization: its names become known to the checks of its family */
PETSC_INTERN PetscErrorCode AIJHybridOptionTableRegister(const AIJHybridOptionTable *);
/* in the type's SetFromOptions: v[k] holds the current value of option k (shown by -help); on return
   v[k].set tells whether option k was given and v[k] holds its valid value. Nothing to undo on error. */
PETSC_INTERN PetscErrorCode AIJHybridOptionsProcess(AIJHybridOptionItems, PetscObject, const AIJHybridOptionTable *, AIJHybridOptionValue[]);
/* the misspelling check of AIJHybridOptionsProcess() alone: a name of the table's family (after
   prefix, may be NULL) that no registered table knows is refused on comm, naming the known ones */
PETSC_INTERN PetscErrorCode AIJHybridOptionsCheckNames(MPI_Comm, PetscOptions, const char *, const AIJHybridOptionTable *);
/* one option k of a table read outside a SetFromOptions (when an object is made, at registration):
   the same checks and messages as AIJHybridOptionsProcess(); v->set tells whether it was given */
PETSC_INTERN PetscErrorCode AIJHybridOptionGet(PetscOptions, const char *, const AIJHybridOptionTable *, PetscInt, AIJHybridOptionValue *);
/* at PetscFinalize(): reports every option of a registered family that no object read */
PETSC_INTERN PetscErrorCode AIJHybridOptionsReportUnused(void);
PETSC_INTERN PetscErrorCode AIJHybridOptionTablesReset(void);

#endif
