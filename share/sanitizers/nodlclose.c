/*
   Preloaded into the ranks of the sanitizer runs only (share/sanitizers/sanitize.py): makes dlclose() a
   no-op so that OpenMPI's and PMIx's MCA components stay mapped until exit. LeakSanitizer reports
   leaks at exit; a component unloaded by MPI_Finalize() would appear as "<unknown module>" and
   could not be matched by the suppressions in lsan.supp. Nothing else changes.
*/
int dlclose(void *handle)
{
  (void)handle;
  return 0;
}
