/*
   Table-driven options (src/options/optiontable.h): reading and checking the options of one
   object as a set, the unknown-name check of a family, the report of unused options at
   PetscFinalize(), and the list of every option (PetscAIJHybridOptionsView()).

   PETSc's own parsers name neither the option nor what it accepts ("Input string abc has no integer
   value", "Unknown logical value: maybe"), turn an integer beyond the range of long into LONG_MAX,
   and are called one option at a time between the Set calls, so one bad option could leave the
   object half changed. Here the raw text of every option of the table is parsed first; the values
   are applied by the caller only when all are valid.
*/
#include "optiontable.h"
#include <petscaijhybrid.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AIJHYBRID_MAX_OPTION_TABLES 16

static const AIJHybridOptionTable *AIJHybridOptionTables[AIJHYBRID_MAX_OPTION_TABLES];
static int                         AIJHybridNumOptionTables;

PetscErrorCode AIJHybridOptionTableRegister(const AIJHybridOptionTable *table)
{
  size_t flen;

  PetscFunctionBegin;
  for (int t = 0; t < AIJHybridNumOptionTables; t++)
    if (AIJHybridOptionTables[t] == table) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(AIJHybridNumOptionTables < AIJHYBRID_MAX_OPTION_TABLES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d option tables", AIJHYBRID_MAX_OPTION_TABLES);
  PetscCall(PetscStrlen(table->family, &flen));
  for (PetscInt k = 0; k < table->n; k++) {
    PetscBool match;

    PetscCall(PetscStrncmp(table->options[k].name, table->family, flen, &match));
    PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Option %s of table %s does not start with the family's name", table->options[k].name, table->family);
  }
  AIJHybridOptionTables[AIJHybridNumOptionTables++] = table;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionTablesReset(void)
{
  PetscFunctionBegin;
  AIJHybridNumOptionTables = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* case-insensitive: does s start with p? (PETSc compares option names without case) */
static PetscBool StartsWith(const char *s, const char *p)
{
  if (!p) return PETSC_TRUE;
  for (; *p; s++, p++)
    if (!*s || tolower((unsigned char)*s) != tolower((unsigned char)*p)) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscBool SameName(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return PETSC_FALSE;
  return (PetscBool)(!*a && !*b);
}

/* is `name` (without prefix) an option of some table of `family` (or of `table` itself)? */
static PetscBool KnownOption(const char *family, const AIJHybridOptionTable *table, const char *name)
{
  for (PetscInt k = 0; k < table->n; k++)
    if (SameName(table->options[k].name, name)) return PETSC_TRUE;
  for (int t = 0; t < AIJHybridNumOptionTables; t++) {
    const AIJHybridOptionTable *o = AIJHybridOptionTables[t];
    if (!SameName(o->family, family)) continue;
    for (PetscInt k = 0; k < o->n; k++)
      if (SameName(o->options[k].name, name)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* the names of every known option of the family, for the message about an unknown one */
static PetscErrorCode FamilyNames(const AIJHybridOptionTable *table, const char *prefix, char *buf, size_t len)
{
  PetscFunctionBegin;
  buf[0] = 0;
  for (int t = -1; t < AIJHybridNumOptionTables; t++) {
    const AIJHybridOptionTable *o = t < 0 ? table : AIJHybridOptionTables[t];
    if (t >= 0 && (o == table || !SameName(o->family, table->family))) continue;
    for (PetscInt k = 0; k < o->n; k++) {
      PetscCall(PetscStrlcat(buf, buf[0] ? ", -" : "-", len));
      PetscCall(PetscStrlcat(buf, prefix, len));
      PetscCall(PetscStrlcat(buf, o->options[k].name, len));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the words PETSc's parser takes for a number, with their values in this PETSc */
static PetscBool Keyword(const char *s, PetscReal *v)
{
  static const struct {
    const char *word;
    PetscReal   value;
  } words[] = {
    {"DEFAULT",   (PetscReal)PETSC_DEFAULT  },
    {"DECIDE",    (PetscReal)PETSC_DECIDE   },
    {"DETERMINE", (PetscReal)PETSC_DETERMINE},
#if defined(PETSC_CURRENT)
    {"CURRENT",   (PetscReal)PETSC_CURRENT  },
#endif
#if defined(PETSC_UNLIMITED)
    {"UNLIMITED", (PetscReal)PETSC_UNLIMITED},
#endif
  };
  const char *w = StartsWith(s, "PETSC_") ? s + 6 : s;

  for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
    if (SameName(w, words[k].word)) {
      *v = words[k].value;
      return PETSC_TRUE;
    }
  return PETSC_FALSE;
}

static PetscBool InRange(const AIJHybridOption *o, PetscReal v)
{
  if (v >= o->min && v <= o->max) return PETSC_TRUE;
  for (PetscInt s = 0; s < o->nspecial; s++)
    if (v == o->special[s]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* parse the text of option o; ok is false when it is not a valid value */
static PetscErrorCode ParseValue(const AIJHybridOption *o, const char *text, AIJHybridOptionValue *v, PetscBool *ok)
{
  PetscReal kw;
  char     *end;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  switch (o->kind) {
  case AIJHYBRID_OPTION_BOOL: {
    const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off"};

    if (!text || !text[0]) { /* -name alone: true, as PETSc does */
      v->i = 1;
      *ok  = PETSC_TRUE;
    }
    for (int k = 0; k < 4 && !*ok; k++) {
      if (SameName(text, yes[k]) || SameName(text, no[k])) {
        v->i = SameName(text, yes[k]) ? 1 : 0;
        *ok  = PETSC_TRUE;
      }
    }
  } break;
  case AIJHYBRID_OPTION_ENUM:
    if (!text) break;
    for (PetscInt k = 0; o->list[k] && o->list[k + 1] && o->list[k + 2]; k++) /* the names end before the type name and prefix */
      if (SameName(text, o->list[k])) {
        v->i = k;
        *ok  = PETSC_TRUE;
      }
    break;
  case AIJHYBRID_OPTION_INT:
    if (!text || !text[0]) break;
    if (Keyword(text, &kw)) {
      v->i = (PetscInt)kw;
      *ok  = InRange(o, kw);
    } else {
      long long n;

      errno = 0;
      n     = strtoll(text, &end, 10);
      if (*end || end == text || errno == ERANGE || n < PETSC_MIN_INT || n > PETSC_MAX_INT) break;
      v->i = (PetscInt)n;
      *ok  = InRange(o, (PetscReal)n);
    }
    break;
  case AIJHYBRID_OPTION_REAL:
    if (!text || !text[0]) break;
    if (Keyword(text, &kw)) {
      v->r = kw;
      *ok  = InRange(o, kw);
    } else {
      double r;

      errno = 0;
      r     = strtod(text, &end);
      if (*end || end == text || !isfinite(r)) break; /* PETSc 3.26 refuses inf itself, without naming the option */
      v->r = (PetscReal)r;
      *ok  = (PetscBool)(isfinite((double)v->r) && InRange(o, v->r));
    }
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *KindName(AIJHybridOptionKind kind)
{
  switch (kind) {
  case AIJHYBRID_OPTION_INT:
    return "int";
  case AIJHYBRID_OPTION_REAL:
    return "real";
  case AIJHYBRID_OPTION_BOOL:
    return "bool";
  case AIJHYBRID_OPTION_ENUM:
    return "enum";
  }
  return "?";
}

/* option k of the table from the database: v->set, and its value when set, checked (errors on comm) */
static PetscErrorCode OptionRead(MPI_Comm comm, PetscOptions options, const char *prefix, const AIJHybridOptionTable *table, PetscInt k, AIJHybridOptionValue *v)
{
  const AIJHybridOption *o = &table->options[k];
  char                   opt[256], text[256];
  PetscBool              ok;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s", o->name));
  PetscCall(PetscOptionsGetString(options, prefix, opt, text, sizeof(text), &v->set));
  if (!v->set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ParseValue(o, text, v, &ok));
  PetscCheck(ok || text[0], comm, PETSC_ERR_ARG_WRONG, "Option -%s%s needs a value: %s", prefix ? prefix : "", o->name, o->accepts);
  PetscCheck(ok, comm, PETSC_ERR_ARG_OUTOFRANGE, "Invalid value '%s' for -%s%s: expected %s", text, prefix ? prefix : "", o->name, o->accepts);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionsCheckNames(MPI_Comm comm, PetscOptions options, const char *oprefix, const AIJHybridOptionTable *table)
{
  const char *prefix = oprefix ? oprefix : "";
  PetscInt    n;
  char      **names;

  PetscFunctionBegin;
  PetscCall(PetscOptionsLeftGet(options, &n, &names, NULL));
  for (PetscInt k = 0; k < n; k++) {
    const char *name = names[k][0] == '-' ? names[k] + 1 : names[k];
    char        known[2048];

    if (!StartsWith(name, prefix)) continue;
    name += strlen(prefix);
    if (!StartsWith(name, table->family) || KnownOption(table->family, table, name)) continue;
    PetscCall(FamilyNames(table, prefix, known, sizeof(known)));
    PetscCall(PetscOptionsLeftRestore(options, &n, &names, NULL));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "Unknown option -%s%s: the -%s%s* options are %s", prefix, name, prefix, table->family, known);
  }
  PetscCall(PetscOptionsLeftRestore(options, &n, &names, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionsProcess(AIJHybridOptionItems PetscOptionsObject, PetscObject obj, const AIJHybridOptionTable *table, AIJHybridOptionValue v[])
{
  const char          *oprefix;
  PetscOptions         options;
  AIJHybridOptionValue given[64];
  char                 opt[256];

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix(obj, &oprefix));
  PetscCall(PetscObjectGetOptions(obj, &options));
  PetscCheck(table->n <= 64, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many options in table %s", table->family);
  /* 1. a name of the family that no table knows: a misspelling (-mat_aijhybrid_num_thread) */
  PetscCall(AIJHybridOptionsCheckNames(PetscObjectComm(obj), options, oprefix, table));
  /* 2. every value of the table, before any is applied */
  for (PetscInt k = 0; k < table->n; k++) {
    given[k] = v[k];
    PetscCall(OptionRead(PetscObjectComm(obj), options, oprefix, table, k, &given[k]));
  }
  /* 3. -help, and the options marked as read, with the values now known to be valid */
  PetscOptionsHeadBegin(PetscOptionsObject, table->title);
  for (PetscInt k = 0; k < table->n; k++) {
    const AIJHybridOption *o = &table->options[k];
    PetscBool              set;

    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s", o->name));
    switch (o->kind) {
    case AIJHYBRID_OPTION_INT: {
      PetscInt i = v[k].i;
      PetscCall(PetscOptionsInt(opt, o->help, o->man, i, &i, &set));
    } break;
    case AIJHYBRID_OPTION_REAL: {
      PetscReal r = v[k].r;
      PetscCall(PetscOptionsReal(opt, o->help, o->man, r, &r, &set));
    } break;
    case AIJHYBRID_OPTION_BOOL: {
      PetscBool b = (PetscBool)(v[k].i != 0);
      PetscCall(PetscOptionsBool(opt, o->help, o->man, b, &b, &set));
    } break;
    case AIJHYBRID_OPTION_ENUM: {
      PetscEnum e = (PetscEnum)v[k].i;
      PetscCall(PetscOptionsEnum(opt, o->help, o->man, o->list, (PetscEnum)v[k].i, &e, &set));
    } break;
    }
  }
  PetscOptionsHeadEnd();
  for (PetscInt k = 0; k < table->n; k++) v[k] = given[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridOptionGet(PetscOptions options, const char *prefix, const AIJHybridOptionTable *table, PetscInt k, AIJHybridOptionValue *v)
{
  PetscFunctionBegin;
  PetscCall(OptionRead(PETSC_COMM_SELF, options, prefix, table, k, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* does `name` (as stored, any prefix) belong to family f: f at its start or right after a '_'? */
static PetscBool InFamily(const char *name, const char *f)
{
  if (StartsWith(name, f)) return PETSC_TRUE;
  for (const char *s = name; *s; s++)
    if (*s == '_' && StartsWith(s + 1, f)) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode AIJHybridOptionsReportUnused(void)
{
  PetscInt  n;
  char    **names, **values;
  PetscBool left = PETSC_TRUE, set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-options_left", &left, &set));
  if (set && !left) PetscFunctionReturn(PETSC_SUCCESS); /* -options_left false: no report, as PETSc */
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < n; k++) {
    const char *name = names[k][0] == '-' ? names[k] + 1 : names[k];

    for (int t = 0; t < AIJHybridNumOptionTables; t++) {
      if (!InFamily(name, AIJHybridOptionTables[t]->family)) continue;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING! petsc-aijhybrid: option -%s%s%s was not used by any object (misspelt, or a prefix no object has?)\n", name, values[k] ? " " : "", values[k] ? values[k] : ""));
      break;
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridOptionsView - Lists every option of every type of the package: its name, kind, what
  it accepts, its default, its Set function and its -help line

  Collective

  Input Parameter:
. viewer - an ASCII viewer

  Level: intermediate

  Note:
  One line per type (`family <name start> | <-help heading> | <options that select the type> | <manual page>`)
  followed by one line per option (`option <name> | <kind> | <range> | <accepts> | <default> | <Set function> | <help>`),
  where the range of an integer or real option is its minimum, its maximum and the values outside
  them that it also accepts, and that of an enum its names.
  The README's options table is generated from this list (`share/docs/options.py`). The tables are
  registered by `MatAIJHybridInitializePackage()`.

.seealso: `MATAIJHYBRID`
@*/
PetscErrorCode PetscAIJHybridOptionsView(PetscViewer viewer)
{
  PetscFunctionBegin;
  for (int t = 0; t < AIJHybridNumOptionTables; t++) {
    const AIJHybridOptionTable *o = AIJHybridOptionTables[t];

    PetscCall(PetscViewerASCIIPrintf(viewer, "family %s | %s | %s | %s\n", o->family, o->title, o->select, o->manpage));
    for (PetscInt k = 0; k < o->n; k++) {
      const AIJHybridOption *p = &o->options[k];

      char range[512] = "";

      if (p->kind == AIJHYBRID_OPTION_INT || p->kind == AIJHYBRID_OPTION_REAL) {
        PetscCall(PetscSNPrintf(range, sizeof(range), "%.17g %.17g", (double)p->min, (double)p->max));
        for (PetscInt s = 0; s < p->nspecial; s++) {
          char sp[64];
          PetscCall(PetscSNPrintf(sp, sizeof(sp), " %.17g", (double)p->special[s]));
          PetscCall(PetscStrlcat(range, sp, sizeof(range)));
        }
      } else if (p->kind == AIJHYBRID_OPTION_ENUM) {
        for (PetscInt k = 0; p->list[k] && p->list[k + 1] && p->list[k + 2]; k++) {
          if (k) PetscCall(PetscStrlcat(range, " ", sizeof(range)));
          PetscCall(PetscStrlcat(range, p->list[k], sizeof(range)));
        }
      }
      PetscCall(PetscViewerASCIIPrintf(viewer, "option %s | %s | %s | %s | %s | %s | %s\n", p->name, KindName(p->kind), range, p->accepts, p->defaults, p->man, p->help));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
