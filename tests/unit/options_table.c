/*
   Prints the options of every type of the package, as registered (PetscAIJHybridOptionsView()):
   the source of the README's options table (share/docs/options.py) and of the tests that compare
   it with -help, the manual pages and the bad-value checks (tests/test_options_table.py).
*/
#include <petscaijhybrid.h>

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscAIJHybridOptionsView(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PetscFinalize());
  return 0;
}
