/*
   The option readers of the package's types. Each type reads its options in its SetFromOptions,
   between PetscOptionsHeadBegin() and PetscOptionsHeadEnd() (inside PETSc's
   PetscObjectOptionsBegin(); where options are read when an object is made, inside a
   PetscObjectOptionsBegin()/PetscOptionsBegin() of its own), with the readers below in place of
   PETSc's reader of the same name, which each of them calls: -help, prefixes and -options_left work
   as for PETSc's own options. What they add to PETSc's reader:
   - a value PETSc refuses is refused naming the option and the value given (PETSc's message names
     neither for an integer, a real or a boolean);
   - what PETSc's parser would misread is refused: an integer beyond PetscInt (PETSc wraps it
     around: 4294967299 is 3 with 32-bit PetscInt, 99999999999999999999 is -1), an integer, real or
     enum option given without a value (PETSc ignores it), and, before PETSc 3.21 (which has no
     PetscOptionsRangeReal()), a real outside the range.
   As with PETSc's readers, a type reads every option first and applies the values after
   PetscOptionsHeadEnd(), so that a bad value leaves the object as it was.

   Options a type also reads when an object is made (a hybrid vector, a node-aware PetscSF: most are
   made without their SetFromOptions) are read with the same readers and items from
   AIJHybridOptionsQuiet(): checked the same way, not listed by -help (their SetFromOptions lists
   them; a listing there would land inside the section of the SetFromOptions that made the object).
*/
#ifndef AIJHYBRID_OPTIONS_H
#define AIJHYBRID_OPTIONS_H

#include "../compat.h"

PETSC_INTERN PetscErrorCode AIJHybridOptionsRangeInt_Private(AIJHybridOptionItems, const char[], const char[], const char[], PetscInt, PetscInt *, PetscBool *, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode AIJHybridOptionsRangeReal_Private(AIJHybridOptionItems, const char[], const char[], const char[], PetscReal, PetscReal *, PetscBool *, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode AIJHybridOptionsBool_Private(AIJHybridOptionItems, const char[], const char[], const char[], PetscBool, PetscBool *, PetscBool *);
/* a value a reader accepted that the type refuses (a gap in the range: 0 threads): refused as a reader refuses it */
PETSC_INTERN PetscErrorCode AIJHybridOptionsCheck(AIJHybridOptionItems, const char[], PetscBool, const char[]);
PETSC_INTERN PetscErrorCode AIJHybridOptionsQuiet(PetscObject, AIJHybridOptionItemsStruct *);
PETSC_INTERN PetscErrorCode AIJHybridOptionsEnum_Private(AIJHybridOptionItems, const char[], const char[], const char[], const char *const *, PetscEnum, PetscEnum *, PetscBool *);

/* the same arguments as PetscOptionsRangeInt(), PetscOptionsRangeReal(), PetscOptionsBool(), PetscOptionsEnum() */
#define AIJHybridOptionsRangeInt(opt, text, man, cur, value, set, lb, ub)  AIJHybridOptionsRangeInt_Private(PetscOptionsObject, opt, text, man, cur, value, set, lb, ub)
#define AIJHybridOptionsRangeReal(opt, text, man, cur, value, set, lb, ub) AIJHybridOptionsRangeReal_Private(PetscOptionsObject, opt, text, man, cur, value, set, lb, ub)
#define AIJHybridOptionsBool(opt, text, man, cur, value, set)              AIJHybridOptionsBool_Private(PetscOptionsObject, opt, text, man, cur, value, set)
#define AIJHybridOptionsEnum(opt, text, man, list, cur, value, set)        AIJHybridOptionsEnum_Private(PetscOptionsObject, opt, text, man, list, (PetscEnum)(cur), (PetscEnum *)(value), set)

#endif
