#!/usr/bin/python3
"""Run PETSc's own test harness with and without the aijhybrid plugin and compare.

Two runs of PETSc's test harness (gmakefile.test) over the same selection of tests:

  baseline  EXTRA_OPTIONS='-mat_type aij -dm_mat_type aij'
  plugin    EXTRA_OPTIONS='-dll_append <lib> -mat_type aijhybrid -dm_mat_type aijhybrid
                           -vec_type hybrid -dm_vec_type hybrid'   (--vectors standard: without the last two)

A test is a plugin regression iff it passed in the baseline and did not pass in the
plugin run, unless
  (a) every failing part of it is a diff that disappears once the plugin's type names are
      mapped back (seqaijhybrid->seqaij, mpiaijhybrid->mpiaij, aijhybrid->aij, seqhybrid->seq,
      mpihybrid->mpi) and the plugin's own "AIJHybrid: ..." lines of ASCII_INFO matrix views
      (which -ksp_view prints) and "Hybrid vector: ..." lines of vector views are removed, and the harness's own diff command (petscdiff with the test's filters) is
      rerun: "type-name-only";
  (b) it is listed in tests/harness_exceptions.txt ("<testname> <reason...>");
  (c) it passes (or differs only in type names) when run again with the plugin and
      -mat_aijhybrid_sor_serial: its only difference is aijhybrid's thread-local MatSOR (with
      more than one thread a different preconditioner by design, that of more ranks;
      docs/preconditioners.md): "sor-thread-local" (--no-sor-rerun to count them as regressions).

With --inject sf the two runs are instead
  baseline  EXTRA_OPTIONS='-sf_type basic'
  plugin    EXTRA_OPTIONS='-dll_append <lib> -sf_type nodeaware -sf_nodeaware_node_size 2'
(the PetscSF type of every VecScatter, DM ghost update and PetscSFSetFromOptions()); the type
name mapped back is nodeaware -> basic, the lines removed the type's own
"NodeAware: ..." view lines, and the tests that give -sf_type in their own arguments (the injected
one, appended last, wins) are listed in the summary ("own_option"), not left out.

Our own examples (--examples DIR, default <repo>/examples) are injected into the harness
tree as src/mat/aijhybrid/tutorials (test names "mat_aijhybrid_tutorials-exN_suffix"),
compiled with -I<include dir> and linked with -lpetscaijhybrid, and run once (without
extra options unless --examples-options is given); every one of them must pass.

Exit status 0 iff there is no regression, no failing example, and every run that was
asked for executed at least one test.  Standard library only.
"""

import argparse
import datetime
import fcntl
import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LIB = os.path.join(os.environ.get('AIJHYBRID_BUILD') or os.path.join(REPO, 'build'), 'lib', 'libpetscaijhybrid.so')
DEFAULT_WORKDIR = os.path.join(os.environ.get('AIJHYBRID_BUILD') or os.path.join(REPO, 'build'), 'harness')  # one per build (PETSc)
DEFAULT_EXAMPLES = os.path.join(REPO, 'examples')
DEFAULT_INCLUDE = os.path.join(REPO, 'include')
DEFAULT_EXCEPTIONS = os.path.join(REPO, 'tests', 'harness_exceptions.txt')
DEFAULT_SEARCH = ['ksp_ksp_tutorials-ex2_*']

# Where our examples go inside the copied harness tree.  gmakegentest.py walks src/ and
# accepts any directory whose path contains "/tests" or "/tutorials" (no makefile needed);
# the first path component must be one of its packages (sys vec mat dm ksp snes ts tao).
# The test-name prefix is the relative directory with '/' replaced by '_'.
EXAMPLES_RELDIR = os.path.join('mat', 'aijhybrid', 'tutorials')
EXAMPLES_PREFIX = EXAMPLES_RELDIR.replace(os.sep, '_')

BASELINE_OPTIONS = '-mat_type aij -dm_mat_type aij'
PLUGIN_OPTIONS = '-dll_append {lib} -mat_type aijhybrid -dm_mat_type aijhybrid'
VECTOR_OPTIONS = {'hybrid': ' -vec_type hybrid -dm_vec_type hybrid', 'standard': ''}

TYPE_NAME_SUBST = [('seqaijhybrid', 'seqaij'), ('mpiaijhybrid', 'mpiaij'), ('aijhybrid', 'aij'),
                   ('seqhybrid', 'seq'), ('mpihybrid', 'mpi')]
# The lines the plugin adds to ASCII_INFO views of its matrices (documented in docs/matrix.md: threads,
# mode, partition, imbalance); -ksp_view prints matrices in that format, so they appear there too.
PLUGIN_VIEW_LINE = re.compile(r'^[ \t]*(AIJHybrid|Hybrid vector): .*\n', re.M)

# What is injected (--inject): the matrix type (above), or the PetscSF type "nodeaware" against
# "basic" (every VecScatter, DM ghost update and PetscSFSetFromOptions() reads -sf_type), with
# emulated nodes of 2 ranks so that tests at 3 and more ranks cross nodes. PetscSFView prints
# "type: nodeaware" and the type's own "NodeAware: ..." lines (nodes, message counts). An injected
# option that no SF reads is reported as PETSc reports unused options (only with -options_left, and by
# default in debug builds), so a test's standard output is unchanged by it.
INJECTIONS = {
    'mat': {'baseline': BASELINE_OPTIONS, 'plugin': PLUGIN_OPTIONS, 'subst': TYPE_NAME_SUBST,
            'view_line': PLUGIN_VIEW_LINE, 'own_option': None},
    # the matrix type only: PETSc's Mat tests make no DM, and PETSc after 3.18 reports an unused
    # -dm_mat_type in their output (every such test would fail in the baseline and go uncompared)
    'mat-only': {'baseline': '-mat_type aij', 'plugin': '-dll_append {lib} -mat_type aijhybrid', 'subst': TYPE_NAME_SUBST,
                 'view_line': PLUGIN_VIEW_LINE, 'own_option': None},
    'sf': {'baseline': '-sf_type basic',
           'plugin': '-dll_append {lib} -sf_type nodeaware -sf_nodeaware_node_size 2',
           'subst': [('nodeaware', 'basic')],
           # the type's view lines: listed as type-name-only
           'view_line': re.compile(r'^([ \t]*NodeAware: .*)\n', re.M),
           'own_option': '-sf_type'},
}
INJECT = INJECTIONS['mat']

OK, FAIL, SKIP, TODO, MISSING = 'ok', 'not ok', 'skip', 'todo', 'missing'


def log(msg):
    print('[harness %s] %s' % (time.strftime('%H:%M:%S'), msg), flush=True)


# --------------------------------------------------------------------------------------
# Locating PETSc and preparing the work tree
# --------------------------------------------------------------------------------------

def petsc_version(petsc_dir):
    """(major, minor, subminor) read from petscversion.h."""
    path = os.path.join(petsc_dir, 'include', 'petscversion.h')
    ver = {}
    with open(path) as fh:
        for line in fh:
            m = re.match(r'#define\s+PETSC_VERSION_(MAJOR|MINOR|SUBMINOR)\s+(\d+)', line)
            if m:
                ver[m.group(1)] = int(m.group(2))
    return ver['MAJOR'], ver['MINOR'], ver.get('SUBMINOR', 0)


def find_examples_tree(petsc_dir):
    """The installed harness tree: $PETSC_DIR/share/petsc/examples, else Debian's copy."""
    cand = [os.path.join(petsc_dir, 'share', 'petsc', 'examples')]
    try:
        major, minor, _ = petsc_version(petsc_dir)
        cand.append('/usr/share/petsc/%d.%d/share/petsc/examples' % (major, minor))
    except (OSError, KeyError):
        pass
    for c in cand:
        if os.path.isfile(os.path.join(c, 'gmakefile.test')) and \
           os.path.isfile(os.path.join(c, 'config', 'gmakegentest.py')):
            return os.path.realpath(c)
    raise SystemExit('error: no PETSc test harness found (tried %s); install libpetsc*-dev-examples'
                     % ', '.join(cand))


def prepare_prefix(petsc_dir, src_examples, workdir):
    """Make <workdir>/petsc look like an installed PETSc prefix with a writable examples tree.

    gmakefile.test runs $(PETSC_DIR)/share/petsc/examples/config/gmakegentest.py, which takes
    its source tree from next to itself (and its configuration from ../../../../include and
    ../../../../lib), and query_tests.py (search=) resolves names relative to
    $(PETSC_DIR)/share/petsc/examples/src.  So PETSC_DIR must be a prefix whose examples tree
    is our copy: include/ and lib/ are symbolic links to the real PETSc, share/petsc/* too
    except examples/, which is a real copy (made once; reused afterwards).
    """
    prefix = os.path.join(workdir, 'petsc')
    share = os.path.join(prefix, 'share', 'petsc')
    os.makedirs(share, exist_ok=True)
    links = {os.path.join(prefix, 'include'): os.path.join(petsc_dir, 'include'),
             os.path.join(prefix, 'lib'): os.path.join(petsc_dir, 'lib')}
    real_share = os.path.join(petsc_dir, 'share', 'petsc')
    if os.path.isdir(real_share):
        for name in os.listdir(real_share):
            if name != 'examples':
                links[os.path.join(share, name)] = os.path.join(real_share, name)
    for link, target in links.items():
        if os.path.islink(link) and os.readlink(link) == target:
            continue
        if os.path.lexists(link):
            if os.path.isdir(link) and not os.path.islink(link):
                shutil.rmtree(link)
            else:
                os.remove(link)
        os.symlink(target, link)

    dest = os.path.join(share, 'examples')
    stamp = os.path.join(dest, '.aijhybrid-copied-from')
    if os.path.isfile(stamp):
        with open(stamp) as fh:
            if fh.read().strip() == src_examples:
                return prefix
        log('harness tree was copied from elsewhere; recopying')
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    log('copying %s -> %s' % (src_examples, dest))
    shutil.copytree(src_examples, dest, symlinks=True,
                    ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
    with open(stamp, 'w') as fh:
        fh.write(src_examples + '\n')
    return prefix


def inject_examples(prefix, examples_dir):
    """Mirror examples_dir into the harness source tree.

    Returns (number of sources with a /*TEST*/ block, fingerprint of the injected files).
    """
    dest = os.path.join(prefix, 'share', 'petsc', 'examples', 'src', EXAMPLES_RELDIR)
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    if not examples_dir or not os.path.isdir(examples_dir):
        return 0, 'none'

    # copy2 keeps modification times, so unchanged examples are not recompiled.
    shutil.copytree(examples_dir, dest, symlinks=False,
                    ignore=shutil.ignore_patterns('.*', '__pycache__', '*.o', '*.d', '*.pyc'))
    n = 0
    for name in os.listdir(dest):
        if re.search(r'\.(c|cxx|cpp|F|F90)$', name):
            with open(os.path.join(dest, name), errors='replace') as fh:
                if '/*TEST' in fh.read():
                    n += 1
    fp = []
    for root, dirs, files in os.walk(dest):
        dirs.sort()
        for f in sorted(files):
            st = os.stat(os.path.join(root, f))
            fp.append('%s %d %d' % (os.path.relpath(os.path.join(root, f), dest), st.st_size, st.st_mtime_ns))
    return n, examples_dir + '\n' + '\n'.join(fp)


# --------------------------------------------------------------------------------------
# Running gmakefile.test
# --------------------------------------------------------------------------------------

def configured_mpiexec(*petsc_dirs):
    """PETSc's configured launcher (MPIEXEC of petscvariables), or None."""
    for d in petsc_dirs:
        try:
            with open(os.path.join(d, 'lib', 'petsc', 'conf', 'petscvariables')) as fh:
                m = re.search(r'^MPIEXEC\s*=\s*(.+?)\s*$', fh.read(), re.M)
        except OSError:
            continue
        if m and m.group(1):
            return m.group(1)
    return None


def write_mpiexec_wrapper(workdir, mpiexec):
    """A launcher for the run scripts (PETSCMPIEXEC): the configured mpiexec, each launch with its own
    Open MPI session directory. Launches running at once (make -j) otherwise share
    /tmp/ompi.<host>.<uid>, which the cleanup of one can remove while another makes its pid.N
    directory in it: that launch fails ("mkdir ... failed") and its test with it."""
    if not mpiexec:
        return None
    path = os.path.join(workdir, 'mpiexec-session')
    text = ('#!/bin/sh\n'
            '# written by tests/harness/harness.py: the configured mpiexec, a session directory per launch\n'
            'd=$(mktemp -d "${TMPDIR:-/tmp}/aijhybrid-mpiexec.XXXXXX") || exit 1\n'
            'OMPI_MCA_orte_tmpdir_base="$d" ' + mpiexec + ' "$@"\n'
            'rc=$?\n'
            'rm -rf "$d"\n'
            'exit $rc\n')
    with open(path, 'w') as fh:
        fh.write(text)
    os.chmod(path, 0o755)
    return path


class Harness:
    def __init__(self, args, prefix):
        self.args = args
        self.prefix = prefix
        self.exdir = os.path.join(prefix, 'share', 'petsc', 'examples')
        self.srcdir = os.path.join(self.exdir, 'src')
        self.logdir = os.path.join(args.workdir, 'logs')
        os.makedirs(self.logdir, exist_ok=True)
        self.env = dict(os.environ)
        for k, v in (('OMPI_ALLOW_RUN_AS_ROOT', '1'), ('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'),
                     ('OMPI_MCA_rmaps_base_oversubscribe', '1')):
            self.env.setdefault(k, v)
        if args.omp_threads:
            self.env['OMP_NUM_THREADS'] = str(args.omp_threads)
        else:
            self.env.setdefault('OMP_NUM_THREADS', '2')
        # Tests run oversubscribed (make -j, several ranks): idle OpenMP threads must sleep.
        self.env.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
        self.env['PETSC_DIR'] = prefix
        self.env['PETSC_ARCH'] = ''
        wrapper = write_mpiexec_wrapper(args.workdir, configured_mpiexec(prefix, args.petsc_dir))
        if wrapper:
            self.env['PETSCMPIEXEC'] = wrapper  # the tests' run scripts launch through it
        self.env.pop('MAKEFLAGS', None)
        self.env.pop('MFLAGS', None)
        self.timeout = None
        if args.timeoutfactor and args.timeoutfactor != 1:
            base = 60
            try:
                with open(os.path.join(self.exdir, 'config', 'petsc_harness.sh')) as fh:
                    m = re.search(r'^TIMEOUT=(\d+)', fh.read(), re.M)
                    if m:
                        base = int(m.group(1))
            except OSError:
                pass
            self.timeout = max(1, int(round(base * args.timeoutfactor)))

    def make_cmd(self, testdir, *extra, makefile='gmakefile.test'):
        return ['make', '-f', makefile, 'PETSC_DIR=' + self.prefix, 'PETSC_ARCH=',
                'TESTDIR=' + testdir] + list(extra)

    def regenerate(self, testdir, fingerprint):
        """Make gmakegentest.py rescan the tree if the injected examples changed.

        gmakefile.test regenerates its test list when a known source changes, but not when a
        source file appears or disappears; so forget the list whenever the set changed.
        """
        stamp = os.path.join(testdir, '.aijhybrid-examples')
        old = None
        if os.path.isfile(stamp):
            with open(stamp) as fh:
                old = fh.read()
        if old == fingerprint:
            return
        for name in ('testfiles', 'datatest.pkl'):
            p = os.path.join(testdir, name)
            if os.path.exists(p):
                os.remove(p)
        with open(stamp, 'w') as fh:
            fh.write(fingerprint)

    def resolve(self, testdir, patterns):
        """Test names matching gmakefile.test search= patterns (via its print-test target)."""
        names = []
        for pat in patterns:
            cmd = self.make_cmd(testdir, '-s', 'print-test', 'search=' + pat)
            p = subprocess.run(cmd, cwd=self.exdir, env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            if p.returncode != 0:
                raise SystemExit('error: %s failed:\n%s%s' % (' '.join(cmd), p.stdout, p.stderr))
            lines = [l for l in p.stdout.splitlines() if l.strip()]
            found = lines[-1].split() if lines else []
            found = [n for n in found if re.match(r'^[\w.+]+-\S+$', n)]
            if not found:
                log('warning: search %r matched no test' % pat)
            names.extend(n for n in found if n not in names)
        return names

    def run(self, label, testdir, names, extra_options, makefile='gmakefile.test'):
        """make test over exactly `names`; returns (elapsed seconds, log path, returncode).

        gmakesearch= takes make $(filter) patterns; exact names select exactly those tests.
        """
        logpath = os.path.join(self.logdir, label + '.log')
        cmd = self.make_cmd(testdir, '-k', '-j%d' % self.args.jobs, 'test',
                            'gmakesearch=' + ' '.join(names), 'EXTRA_OPTIONS=' + extra_options,
                            makefile=makefile)
        if self.timeout:
            cmd.append('TIMEOUT=%d' % self.timeout)
        log('%s run: %d tests, EXTRA_OPTIONS=%r, log %s' % (label, len(names), extra_options, logpath))
        t0 = time.time()
        with open(logpath, 'w') as fh:
            fh.write('# cwd: %s\n# %s\n' % (self.exdir, ' '.join(shlex.quote(c) for c in cmd)))
            fh.flush()
            p = subprocess.run(cmd, cwd=self.exdir, env=self.env, stdout=fh, stderr=subprocess.STDOUT)
        elapsed = time.time() - t0
        log('%s run finished in %.1f s (make exit %d)' % (label, elapsed, p.returncode))
        return elapsed, logpath, p.returncode


def write_examples_makefile(exdir, lib, include_dir, testdirs=()):
    """Write the makefile that builds our examples against the plugin; returns its name.

    It includes gmakefile.test unchanged and adds pattern-specific variables for the
    examples' directory only: CPPFLAGS (read by gmakefile.test's compile rule through
    $(CCPPFLAGS)) gets -I<include dir>, and PETSC_TEST_LIB (the link rule's library list,
    $(PETSC_LIB) by default) gets -L<libdir> -Wl,-rpath,<libdir> -l<lib> in front.  These
    cannot go on the make command line: gmakefile.test echoes $(MAKEFLAGS) through the shell
    unquoted, so a command-line value holding "$(PETSC_LIB)" breaks its pre-clean target.
    """
    libdir = os.path.dirname(os.path.abspath(lib))
    m = re.match(r'^lib(.+?)\.(so|dylib|a)(\..*)?$', os.path.basename(lib))
    link = ('-L%s -Wl,-rpath,%s -l%s' % (libdir, libdir, m.group(1))) if m else os.path.abspath(lib)
    name = 'gmakefile.aijhybrid'
    text = """# Generated by tests/harness/harness.py (petsc-aijhybrid); rewritten at every run.
# PETSc's gmakefile.test plus the compile and link flags of the aijhybrid examples.
include gmakefile.test

$(TESTDIR)/%(reldir)s/%%: CPPFLAGS += -I%(inc)s
$(TESTDIR)/%(reldir)s/%%: PETSC_TEST_LIB = %(link)s $(PETSC_LIB)
""" % {'reldir': EXAMPLES_RELDIR, 'inc': os.path.abspath(include_dir), 'link': link}
    path = os.path.join(exdir, name)
    # Executables linked with other flags (another library path) must be relinked.
    for testdir in testdirs:
        stamp = os.path.join(testdir, EXAMPLES_RELDIR, '.aijhybrid-flags')
        if os.path.isfile(stamp):
            with open(stamp) as fh:
                if fh.read() == text:
                    continue
        shutil.rmtree(os.path.join(testdir, EXAMPLES_RELDIR), ignore_errors=True)
        # the generated run scripts went with it: make the harness regenerate them
        for f in ('.aijhybrid-examples', 'testfiles', 'datatest.pkl'):
            if os.path.exists(os.path.join(testdir, f)):
                os.remove(os.path.join(testdir, f))
        os.makedirs(os.path.dirname(stamp), exist_ok=True)
        with open(stamp, 'w') as fh:
            fh.write(text)
    old = None
    if os.path.isfile(path):
        with open(path) as fh:
            old = fh.read()
    if old != text:
        with open(path, 'w') as fh:
            fh.write(text)
    return name


def share_build_products(src_testdir, dst_testdir):
    """Hard-link (or copy) compiled objects and executables from one TESTDIR to another.

    Test executables of PETSc's examples do not link the plugin, so the plugin run can reuse
    the baseline's.  Modification times are preserved, so make sees them as up to date.
    """
    count = 0
    for root, dirs, files in os.walk(src_testdir):
        rel = os.path.relpath(root, src_testdir)
        if rel == 'counts' or os.path.basename(root).startswith('run'):
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if not d.startswith('run') and d != 'counts']
        for f in files:
            if not f.endswith('.o'):
                continue
            stem = f[:-2]
            for name in (f, stem + '.d', stem):
                s = os.path.join(root, name)
                if not os.path.isfile(s):
                    continue
                d = os.path.join(dst_testdir, rel, name)
                os.makedirs(os.path.dirname(d), exist_ok=True)
                if os.path.exists(d):
                    if os.path.samefile(s, d):
                        continue
                    os.remove(d)
                try:
                    os.link(s, d)
                except OSError:
                    shutil.copy2(s, d)
                count += 1
    return count


# --------------------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------------------

def read_counts(testdir, name):
    path = os.path.join(testdir, 'counts', name + '.counts')
    if not os.path.isfile(path):
        return None
    c = {'total': 0, 'success': 0, 'failed': 0, 'todo': 0, 'skip': 0, 'failures': []}
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == 'failures':
                c['failures'] = parts[1:]
            elif parts[0] in c and len(parts) > 1:
                try:
                    c[parts[0]] = int(parts[1])
                except ValueError:
                    pass
    return c


def status_of(counts):
    if counts is None:
        return MISSING
    if counts['failed'] > 0:
        return FAIL
    if counts['success'] > 0:
        return OK
    if counts['todo'] > 0:
        return TODO
    if counts['skip'] > 0:
        return SKIP
    return MISSING


def read_tap(testdir):
    """label -> (status word, comment) from the harness's TAP log."""
    tap = {}
    for path in (os.path.join(testdir, 'test__tap.log'),):
        if not os.path.isfile(path):
            continue
        with open(path, errors='replace') as fh:
            for line in fh:
                m = re.match(r'^\s*(not )?ok (\S+)(?: # (.*))?$', line.rstrip('\n'))
                # a failed run also reports "ok <label> # SKIP Command failed so no diff":
                # keep the "not ok" entry of a label
                if m and not (m.group(2) in tap and tap[m.group(2)][0] == 'not ok'):
                    tap[m.group(2)] = ('not ok' if m.group(1) else 'ok', m.group(3) or '')
    return tap


class RunDirs:
    """Maps a test name (e.g. ksp_ksp_tutorials-ex2_1) to its run directory in a TESTDIR."""

    def __init__(self, srcdir):
        self.prefixes = {}
        for root, dirs, files in os.walk(srcdir):
            dirs[:] = [d for d in dirs if d != 'output']
            rel = os.path.relpath(root, srcdir)
            if rel != '.':
                self.prefixes[rel.replace(os.sep, '_')] = rel

    def rundir(self, testdir, name):
        best = None
        for pfx, rel in self.prefixes.items():
            if name.startswith(pfx + '-') and (best is None or len(pfx) > len(best[0])):
                best = (pfx, rel)
        if best is None:
            return None
        return os.path.join(testdir, best[1], 'run' + name[len(best[0]) + 1:])


def build_errors(logpath, exe_relpath, nlines):
    """Lines of a make log that tell why an executable was not built (compiler/linker errors)."""
    stem = os.path.basename(exe_relpath)
    out = []
    try:
        with open(logpath, errors='replace') as fh:
            for line in fh:
                l = line.rstrip('\n')
                if (exe_relpath in l or '/%s.' % stem in l) and \
                   re.search(r'error|undefined reference|\*\*\*', l, re.I):
                    out.append(l)
                if len(out) >= nlines:
                    break
    except OSError:
        pass
    return out


def head_file(path, nlines):
    try:
        with open(path, errors='replace') as fh:
            out = []
            for i, line in enumerate(fh):
                if i >= nlines:
                    out.append('...')
                    break
                line = line.rstrip('\n')
                out.append(line if len(line) <= 200 else line[:200] + ' [...]')
            return out
    except OSError:
        return []


# Redirections in the command lines the harness writes to <rundir>/<label>.sh, e.g.
#   mpiexec -n 2 ../ex2 ... > ex2_1.tmp 2> runex2_1.err
#   petscdiff REF ex2_1.tmp > diff-runex2_1.out 2> diff-runex2_1.out
# or, with alternative reference files, "petscdiff REF ACT > diff-runex2_1-0.out 2> ... || ...".
_REDIR_RE = re.compile(r'(?<![<>&\w])(\d?>)\s*([^\s&;|][^\s;|]*)')
_DIFF_ACT_RE = re.compile(r'(?<=\s)(\S+)\s+>\s*(diff-\S+)')


def sub_command(rundir, label):
    """(command text, files it redirects to) of the harness's command for one TAP label."""
    path = os.path.join(rundir, label + '.sh')
    try:
        with open(path) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    targets = []
    for m in _REDIR_RE.finditer(text):
        if m.group(2) not in targets:
            targets.append(m.group(2))
    return text, targets


def failure_excerpt(rundir, labels, nlines):
    """Start of the diff (or of stdout/stderr for a failed run) of each failing label.

    With alternative reference files the first diff shown is the one against the main one."""
    lines = []
    for label in labels:
        sc = sub_command(rundir, label) if rundir else None
        lines.append('--- %s' % label)
        if sc is None:
            lines.append('    (no command file found in %s)' % rundir)
            continue
        text, targets = sc
        if label.startswith('diff-'):
            targets = [t for t in targets if t.startswith('diff-')][:1] or targets[:1]
        for f in targets:
            body = head_file(os.path.join(rundir, f), nlines)
            if body:
                lines.extend('    ' + l for l in body)
    return lines


def type_name_only(rundir, labels):
    """True iff every failing label is a diff that passes after mapping type names back and
    removing the plugin's own 'AIJHybrid:' view lines.

    The harness's own diff command (petscdiff with the test's filters, and its alternative
    reference files) is rerun on a copy of the actual output with the type names mapped."""
    if not rundir or not labels:
        return False, 'no run directory'
    for label in labels:
        if not label.startswith('diff-'):
            return False, '%s is not a diff' % label
        sc = sub_command(rundir, label)
        if sc is None:
            return False, 'cannot read the diff command of %s' % label
        text = sc[0]
        actuals = {m.group(1) for m in _DIFF_ACT_RE.finditer(text)}
        if len(actuals) != 1:
            return False, 'cannot find the compared output in %r' % text
        actual = actuals.pop()
        apath = os.path.join(rundir, actual)
        try:
            with open(apath, errors='surrogateescape') as fh:
                out = fh.read()
        except OSError:
            return False, 'no output file %s' % apath
        for a, b in INJECT['subst']:
            out = out.replace(a, b)
        out = INJECT['view_line'].sub('', out)
        norm = actual + '.typenames'
        with open(os.path.join(rundir, norm), 'w', errors='surrogateescape') as fh:
            fh.write(out)
        newcmd = re.sub(r'(?<=\s)%s(?=\s)' % re.escape(actual), lambda m: shlex.quote(norm), text)
        newcmd = re.sub(r'(\d?>\s*)(diff-\S+?)\.out(?=\s|$)', r'\1\2.typenames.out', newcmd)
        p = subprocess.run(['bash', '-c', newcmd], cwd=rundir, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            return False, 'diff remains after type-name mapping (%s)' % ', '.join(
                os.path.join(rundir, f) for f in typenames_outputs(rundir, label))
    return True, ''


def typenames_outputs(rundir, label):
    """The diff outputs written by type_name_only() for a label (first: main reference)."""
    sc = sub_command(rundir, label)
    if sc is None:
        return []
    return [re.sub(r'\.out$', '.typenames.out', t) for t in sc[1] if t.startswith('diff-')]


def read_exceptions(path):
    exc = []
    if not path or not os.path.isfile(path):
        return exc
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 1)
            reason = parts[1].strip() if len(parts) > 1 else ''
            if not reason:
                raise SystemExit('error: %s:%d: exception %r has no reason' % (path, n, parts[0]))
            exc.append((parts[0], reason))
    return exc


def match_exception(exceptions, name):
    for pat, reason in exceptions:
        if pat == name or fnmatch.fnmatchcase(name, pat):
            return reason
    return None


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('--inject', choices=sorted(INJECTIONS), default='mat',
                    help="what the plugin run injects: 'mat' (-mat_type aijhybrid against aij, default), 'mat-only' "
                         "(the same without -dm_mat_type, for tests that make no DM) or "
                         "'sf' (-sf_type nodeaware -sf_nodeaware_node_size 2 against -sf_type basic)")
    ap.add_argument('--lib', default=os.environ.get('AIJHYBRID_LIB', DEFAULT_LIB),
                    help='the plugin shared library (default $AIJHYBRID_LIB or %(default)s)')
    ap.add_argument('--search', action='append', default=None, metavar='PATTERN',
                    help="gmakefile.test search= pattern, repeatable (default %s)" % DEFAULT_SEARCH[0])
    ap.add_argument('--jobs', '-j', type=int, default=2, help='make -j (default %(default)s)')
    ap.add_argument('--petsc-dir', default=os.environ.get('PETSC_DIR') or '/usr/lib/petsc',
                    help='installed PETSc prefix (default $PETSC_DIR or /usr/lib/petsc)')
    ap.add_argument('--examples', default=DEFAULT_EXAMPLES,
                    help='our harness examples (ex*.c with /*TEST*/ blocks, output/) (default %(default)s)')
    ap.add_argument('--include-dir', default=DEFAULT_INCLUDE,
                    help='directory of petscaijhybrid.h for the examples (default %(default)s)')
    ap.add_argument('--workdir', default=DEFAULT_WORKDIR, help='writable work dir (default %(default)s)')
    ap.add_argument('--exceptions', default=DEFAULT_EXCEPTIONS,
                    help='known-exception list (default %(default)s)')
    ap.add_argument('--json', metavar='OUT', help='write a JSON summary here')
    ap.add_argument('--timeoutfactor', type=float, default=1.0,
                    help='multiply the harness per-test timeout (default %(default)s)')
    ap.add_argument('--omp-threads', type=int, default=0,
                    help='OMP_NUM_THREADS for the tests (default: $OMP_NUM_THREADS, else 2)')
    ap.add_argument('--examples-options', default='',
                    help="EXTRA_OPTIONS for our examples (default none: they link the plugin and "
                         "choose their matrix types themselves; e.g. -mat_type aijhybrid would "
                         "override a test's own -mat_type aij)")
    ap.add_argument('--vectors', choices=sorted(VECTOR_OPTIONS), default='hybrid',
                    help='vector type of the plugin run: hybrid adds -vec_type hybrid -dm_vec_type hybrid '
                         '(default %(default)s)')
    ap.add_argument('--baseline-only', action='store_true', help='run only the baseline (no plugin needed)')
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--examples-only', action='store_true', help='run only our examples')
    g.add_argument('--no-examples', action='store_true', help='do not run our examples')
    ap.add_argument('--diff-lines', type=int, default=12, help='lines of each diff to print (default %(default)s)')
    ap.add_argument('--plugin-options', default='',
                    help="options appended to the plugin run's EXTRA_OPTIONS (e.g. -mat_aijhybrid_factor_check)")
    ap.add_argument('--no-sor-rerun', action='store_true',
                    help='do not rerun plugin failures with -mat_aijhybrid_sor_serial (see class sor-thread-local)')
    args = ap.parse_args(argv)
    args.workdir = os.path.abspath(args.workdir)
    args.lib = os.path.abspath(args.lib)
    args.petsc_dir = os.path.abspath(args.petsc_dir)
    if args.examples:
        args.examples = os.path.abspath(args.examples)
    if args.search is None:
        args.search = list(DEFAULT_SEARCH)
    if args.jobs < 1:
        ap.error('--jobs must be >= 1')
    if args.baseline_only and args.examples_only:
        ap.error('--baseline-only and --examples-only exclude each other')
    if "'" in args.lib:
        ap.error('--lib must not contain a single quote')
    return args


SOR_RERUN = 'plugin-sor-serial'
SOR_CLASS = 'sor-thread-local'
# every class of the summary, in the order it prints them (each test is in exactly one)
CLASS_ORDER = ['pass', 'regression', 'type-name-only', SOR_CLASS, 'exception', 'baseline-fail', 'skip', 'todo']
CLASS_NOTE = {SOR_CLASS: "(differ through aijhybrid's thread-local MatSOR, by design; pass with -mat_aijhybrid_sor_serial)"}


def sor_rerun(h, args, tdir, fingerprint, rundirs, plugin_options, classes, summary):
    """Run the plugin's regressions again with -mat_aijhybrid_sor_serial (AIJ's own SOR sweeps);
    those that then pass, or differ only in type names, become SOR_CLASS: their difference is the
    thread-local SOR, which with several threads preconditions like more ranks (by design)."""
    again = sorted(n for n, c in classes.items() if c == 'regression')
    if not again:
        return
    opts = plugin_options + ' -mat_aijhybrid_sor_serial'
    os.makedirs(tdir[SOR_RERUN], exist_ok=True)
    h.regenerate(tdir[SOR_RERUN], fingerprint)
    share_build_products(tdir['baseline'], tdir[SOR_RERUN])
    elapsed, logpath, rc = h.run(SOR_RERUN, tdir[SOR_RERUN], again, opts)
    summary['runs'][SOR_RERUN] = {'testdir': tdir[SOR_RERUN], 'options': opts, 'log': logpath,
                                  'elapsed_s': round(elapsed, 1), 'make_exit': rc, 'tests': again}
    for n in again:
        st = status_of(read_counts(tdir[SOR_RERUN], n))
        ok = st == OK
        if st == FAIL:
            counts = read_counts(tdir[SOR_RERUN], n)
            ok = type_name_only(rundirs.rundir(tdir[SOR_RERUN], n), counts['failures'] if counts else [])[0]
        if ok:
            classes[n] = SOR_CLASS
            summary['tests'][n]['class'] = SOR_CLASS
            summary['tests'][n]['reason'] = 'passes with -mat_aijhybrid_sor_serial: the difference is the thread-local SOR'


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t_start = time.time()
    do_compare = not args.examples_only
    do_plugin = do_compare and not args.baseline_only
    do_examples = not args.no_examples and not args.baseline_only
    if (do_plugin or do_examples) and not os.path.isfile(args.lib):
        raise SystemExit('error: plugin library %s does not exist (build it, or use --lib / --baseline-only)'
                         % args.lib)
    petsc_dir = os.path.realpath(args.petsc_dir)
    src_examples = find_examples_tree(petsc_dir)
    os.makedirs(args.workdir, exist_ok=True)
    lockfh = open(os.path.join(args.workdir, '.lock'), 'w')
    try:
        fcntl.flock(lockfh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        log('another harness.py is using %s; waiting' % args.workdir)
        fcntl.flock(lockfh, fcntl.LOCK_EX)

    prefix = prepare_prefix(petsc_dir, src_examples, args.workdir)
    nex, fingerprint = inject_examples(prefix, args.examples if do_examples else None)
    h = Harness(args, prefix)
    rundirs = RunDirs(h.srcdir)
    exceptions = read_exceptions(args.exceptions)
    global INJECT
    INJECT = INJECTIONS[args.inject]
    plugin_options = INJECT['plugin'].format(lib=args.lib)
    if args.inject in ('mat', 'mat-only'):
        plugin_options += VECTOR_OPTIONS[args.vectors]
    if args.plugin_options:
        plugin_options += ' ' + args.plugin_options

    tdir = {k: os.path.join(args.workdir, 'tests-' + k) for k in ('baseline', 'plugin', 'examples', SOR_RERUN)}
    summary = {
        'date': datetime.datetime.now().isoformat(timespec='seconds'),
        'petsc_dir': petsc_dir, 'harness_tree': src_examples, 'workdir': args.workdir,
        'lib': args.lib, 'search': args.search, 'jobs': args.jobs, 'inject': args.inject,
        'omp_num_threads': h.env.get('OMP_NUM_THREADS'),
        'runs': {}, 'tests': {}, 'classes': {}, 'examples': {}, 'problems': [],
    }
    problems = summary['problems']

    # ---- baseline and plugin runs over PETSc's tests
    names = []
    if do_compare:
        for k in ('baseline', 'plugin'):
            os.makedirs(tdir[k], exist_ok=True)
            h.regenerate(tdir[k], fingerprint)
        names = [n for n in h.resolve(tdir['baseline'], args.search)
                 if not n.startswith(EXAMPLES_PREFIX + '-')]
        if not names:
            problems.append('the search patterns matched no test')
        else:
            runs = [('baseline', INJECT['baseline'])]
            if do_plugin:
                runs.append(('plugin', plugin_options))
            for label, opts in runs:
                if label == 'plugin':
                    n = share_build_products(tdir['baseline'], tdir['plugin'])
                    log('reusing %d compiled files from the baseline run' % n)
                elapsed, logpath, rc = h.run(label, tdir[label], names, opts)
                st = {n: status_of(read_counts(tdir[label], n)) for n in names}
                executed = sum(1 for s in st.values() if s in (OK, FAIL))
                summary['runs'][label] = {'testdir': tdir[label], 'options': opts, 'log': logpath,
                                          'elapsed_s': round(elapsed, 1), 'make_exit': rc,
                                          'executed': executed,
                                          'counts': {s: sum(1 for v in st.values() if v == s)
                                                     for s in (OK, FAIL, SKIP, TODO, MISSING)}}
                for n in names:
                    summary['tests'].setdefault(n, {})[label] = st[n]
                if executed == 0:
                    problems.append('the %s run executed no test (see %s)' % (label, logpath))

    # ---- classification
    classes = {}
    details = {}
    if do_compare and names:
        for n in names:
            b = summary['tests'][n].get('baseline')
            p = summary['tests'][n].get('plugin')
            reason = None
            if not do_plugin:
                cls = {OK: 'pass', FAIL: 'baseline-fail', MISSING: 'baseline-fail'}.get(b, b)
            elif b in (SKIP, TODO):
                cls = b
            elif b != OK:
                cls = 'baseline-fail'
            elif p == OK:
                cls = 'pass'
            else:
                counts = read_counts(tdir['plugin'], n)
                failing = counts['failures'] if counts else []
                rd = rundirs.rundir(tdir['plugin'], n)
                tno, why = (False, 'no result') if p != FAIL else type_name_only(rd, failing)
                mapped = [os.path.join(rd, f) for l in failing if rd and p == FAIL
                          for f in typenames_outputs(rd, l)[:1]]
                mapped = [m for m in mapped if os.path.isfile(m)]
                exc = match_exception(exceptions, n)
                tap = read_tap(tdir['plugin'])
                comments = ['%s: %s' % (l, tap[l][1]) for l in failing if l in tap and tap[l][1]]
                if p == MISSING:
                    logp = summary['runs']['plugin']['log']
                    excerpt = ['    no result in the plugin run (build failure or make abort); see %s' % logp]
                else:
                    excerpt = failure_excerpt(rd, failing, args.diff_lines)
                    excerpt += ['    (diff after mapping type names back: %s)' % m for m in mapped]
                details[n] = {'plugin_status': p, 'failing': failing, 'comments': comments,
                              'rundir': rd, 'excerpt': excerpt, 'type_name_check': why}
                if tno:
                    cls = 'type-name-only'
                elif exc is not None:
                    cls = 'exception'
                    reason = exc
                else:
                    cls = 'regression'
            classes[n] = cls
            summary['tests'][n]['class'] = cls
            if reason:
                summary['tests'][n]['reason'] = reason
            if n in details:
                summary['tests'][n].update(details[n])

    # ---- plugin failures that only aijhybrid's thread-local MatSOR causes
    if do_plugin and not args.no_sor_rerun:
        sor_rerun(h, args, tdir, fingerprint, rundirs, plugin_options, classes, summary)

    # ---- our examples
    ex_status = {}
    if do_examples:
        os.makedirs(tdir['examples'], exist_ok=True)
        # (first: it may wipe stale executables, and with them generated scripts)
        mk = write_examples_makefile(h.exdir, args.lib, args.include_dir, [tdir['examples']])
        h.regenerate(tdir['examples'], fingerprint)
        if nex == 0:
            problems.append('no examples with /*TEST*/ blocks found in %s' % args.examples)
        else:
            exnames = h.resolve(tdir['examples'], [EXAMPLES_PREFIX + '-*'])
            if not exnames:
                problems.append('the examples in %s define no test' % args.examples)
            else:
                elapsed, logpath, rc = h.run('examples', tdir['examples'], exnames, args.examples_options,
                                             makefile=mk)
                for n in exnames:
                    s = status_of(read_counts(tdir['examples'], n))
                    ex_status[n] = s
                    if s != OK:
                        counts = read_counts(tdir['examples'], n)
                        rd = rundirs.rundir(tdir['examples'], n)
                        failing = counts['failures'] if counts else []
                        if s == MISSING:
                            excerpt = ['    no result (compile/link failure?); see %s' % logpath]
                            if rd:
                                exe = os.path.join(os.path.dirname(rd), n.split('-', 1)[1].split('_')[0])
                                excerpt += ['    ' + l for l in build_errors(logpath, exe, args.diff_lines)]
                        else:
                            excerpt = failure_excerpt(rd, failing, args.diff_lines)
                        summary['examples'][n] = {'status': s, 'failing': failing, 'excerpt': excerpt}
                    else:
                        summary['examples'][n] = {'status': s}
                executed = sum(1 for s in ex_status.values() if s in (OK, FAIL))
                summary['runs']['examples'] = {'testdir': tdir['examples'], 'options': args.examples_options,
                                               'makefile': os.path.join(h.exdir, mk), 'log': logpath,
                                               'elapsed_s': round(elapsed, 1), 'make_exit': rc,
                                               'executed': executed,
                                               'counts': {s: sum(1 for v in ex_status.values() if v == s)
                                                          for s in (OK, FAIL, SKIP, TODO, MISSING)}}
                if executed == 0:
                    problems.append('the examples run executed no test (see %s)' % logpath)

    # ---- tests that name the injected option themselves: the injection (appended last) overrides it
    own = []
    if do_compare and names and INJECT['own_option']:
        pat = re.compile(r'(?<!\S)%s(?!\S)' % re.escape(INJECT['own_option']))
        for n in names:
            rd = rundirs.rundir(tdir['baseline'], n)
            try:
                with open(rd + '.sh', errors='replace') as fh:
                    if pat.search(fh.read()):
                        own.append(n)
            except (OSError, TypeError):
                pass
    summary['own_option'] = {n: classes.get(n) for n in own}

    # ---- report
    regressions = [n for n, c in classes.items() if c == 'regression']
    ex_failed = [n for n, s in ex_status.items() if s in (FAIL, MISSING)]
    for n in ex_failed:
        problems.append('example %s: %s' % (n, ex_status[n]))
    exit_status = 0 if not regressions and not problems else 1
    summary['classes'] = {c: sorted(n for n, v in classes.items() if v == c)
                          for c in sorted(set(classes.values()))}
    unclassified = sorted(set(summary['tests']) - set(classes)) if do_compare else []
    if unclassified:  # every test compared is in a class: none left out of the counts
        problems.append('%d test(s) in no class: %s' % (len(unclassified), ' '.join(unclassified[:20])))
        exit_status = 1
    summary['regressions'] = sorted(regressions)
    summary['exit_status'] = exit_status
    summary['elapsed_s'] = round(time.time() - t_start, 1)

    print()
    print('=' * 78)
    print('aijhybrid harness comparison, injecting %s  (PETSc %s, harness %s)' % (args.inject, petsc_dir, src_examples))
    print('  search: %s' % ' '.join(args.search) if do_compare else '  search: (examples only)')
    print('  lib:    %s' % (args.lib if (do_plugin or do_examples) else '(baseline only)'))
    for label in ('baseline', 'plugin', 'examples'):
        r = summary['runs'].get(label)
        if r:
            c = r['counts']
            print('  %-9s %6.1f s  ok %d, not ok %d, skip %d, todo %d, missing %d   [%s]'
                  % (label, r['elapsed_s'], c[OK], c[FAIL], c[SKIP], c[TODO], c[MISSING], r['log']))
    if classes:
        print('-' * 78)
        print('%-18s %6s' % ('class', 'tests'))
        for c in CLASS_ORDER + sorted(set(classes.values()) - set(CLASS_ORDER)):
            k = sum(1 for v in classes.values() if v == c)
            if k or c in ('pass', 'regression'):
                print('%-18s %6d%s' % (c, k, ('  ' + CLASS_NOTE[c]) if k and c in CLASS_NOTE else ''))
        print('%-18s %6d' % ('in all', len(classes)))
    if regressions:
        print('-' * 78)
        print('REGRESSIONS (passed in the baseline, not with aijhybrid):')
        for n in sorted(regressions):
            d = details[n]
            print('* %s  [plugin: %s; failing: %s]' % (n, d['plugin_status'], ' '.join(d['failing'])))
            for c in d['comments']:
                print('    # ' + c)
            for l in d['excerpt']:
                print('  ' + l)
    exc_names = sorted(n for n, c in classes.items() if c == 'exception')
    if exc_names:
        print('-' * 78)
        print('EXCEPTIONS (listed in %s):' % args.exceptions)
        for n in exc_names:
            print('* %s: %s' % (n, summary['tests'][n]['reason']))
    tn = sorted(n for n, c in classes.items() if c == 'type-name-only')
    if tn:
        print('-' * 78)
        print('TYPE-NAME-ONLY (diff disappears with the type names mapped back (%s) and the plugin\'s view lines removed):'
              % ', '.join('%s->%s' % ab for ab in INJECT['subst']))
        for n in tn:
            print('* %s' % n)
    if own:
        print('-' * 78)
        print('NAME THEIR OWN %s (run with the injected one, which comes last; listed, not silenced):' % INJECT['own_option'])
        for n in own:
            print('* %s  [%s]' % (n, classes.get(n)))
    sl = sorted(n for n, c in classes.items() if c == SOR_CLASS)
    if sl:
        print('-' * 78)
        print('SOR-THREAD-LOCAL (differ only through aijhybrid\'s thread-local MatSOR: pass with -mat_aijhybrid_sor_serial):')
        for n in sl:
            print('* %s' % n)
    bf = sorted(n for n, c in classes.items() if c == 'baseline-fail')
    if bf:
        print('-' * 78)
        print('failing already in the baseline (not compared): %s' % ' '.join(bf))
    if do_plugin and exceptions:
        stale = [p for p, _ in exceptions
                 if any(fnmatch.fnmatchcase(n, p) for n in classes) and
                 not any(fnmatch.fnmatchcase(n, p) and classes[n] == 'exception' for n in classes)]
        if stale:
            print('note: exceptions not needed in this run: %s' % ' '.join(stale))
    if ex_status:
        print('-' * 78)
        print('OUR EXAMPLES (%s):' % args.examples)
        for n in sorted(ex_status):
            print('  %-7s %s' % (ex_status[n], n))
            for l in summary['examples'][n].get('excerpt', []):
                print('  ' + l)
    if problems:
        print('-' * 78)
        for p in problems:
            print('PROBLEM: ' + p)
    print('=' * 78)
    print('RESULT: %s  (%d regression(s), %d problem(s), %.0f s)'
          % ('PASS' if exit_status == 0 else 'FAIL', len(regressions), len(problems), summary['elapsed_s']))
    if args.json:
        with open(args.json, 'w') as fh:
            json.dump(summary, fh, indent=1, sort_keys=True)
    return exit_status


if __name__ == '__main__':
    sys.exit(main())
