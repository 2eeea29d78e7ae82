# Spack recipe of petsc-aijhybrid, kept with its sources (docs/install.md, "Spack"). The repository
# (share/spack/repo.yaml) uses Spack's package API v1 (the format before Spack 1.0, which 1.x still reads).
#
#   spack repo add share/spack
#   spack dev-build -d . petsc-aijhybrid@main +python      # from a checkout (or spack develop)
#   spack test run petsc-aijhybrid                         # the smoke test: ex1 against the install

import os

from spack.package import *


class PetscAijhybrid(MakefilePackage):
    """PETSc plugin for hybrid MPI/OpenMP solves, chosen at run time: the matrix type aijhybrid
    (AIJ with threaded products), threaded vectors (hybrid), threaded triangular solves and SOR for
    PETSc's preconditioners, and a node-aware PetscSF type (nodeaware). Applications load it with
    -dll_append or link it (pkg-config petscaijhybrid); petsc4py loads it with
    `import petsc_aijhybrid` (+python)."""

    # The recipe lives in the repository it builds: `spack install` clones that checkout's main
    # branch (git file://); `spack dev-build` and `spack develop` build a working tree instead. A
    # copy of the recipe elsewhere sets git to the project's public repository.
    git = "file://" + os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))

    version("main", branch="main")

    variant("python", default=False, description="Install the petsc4py layer (import petsc_aijhybrid)")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("mpi")
    depends_on("petsc@3.18:+mpi")
    depends_on("python", when="+python", type=("build", "run"))
    depends_on("py-petsc4py", when="+python", type=("build", "run"))
    depends_on("py-numpy", when="+python", type=("build", "run"))
    # the library is built with PETSc's compiler and -fopenmp: the compiler needs OpenMP
    conflicts("%apple-clang", msg="petsc-aijhybrid needs OpenMP (-fopenmp), which Apple's clang lacks")

    def _petsc_args(self):
        return ["PETSC_DIR={0}".format(self.spec["petsc"].prefix), "PETSC_ARCH="]

    @property
    def build_targets(self):
        return ["lib"] + self._petsc_args()

    @property
    def install_targets(self):
        args = ["install", "PREFIX={0}".format(self.prefix)] + self._petsc_args()
        if self.spec.satisfies("+python"):
            args.append("PYSITE={0}".format(join_path(self.prefix, self.spec["python"].package.purelib)))
        return args

    def check(self):
        """`spack install --test`: the pure C unit tests (partitioners, plan builder, kernels, level
        schedules, orderings, SOR). The project's `make test` (pytest, petsc4py, PETSc's harness,
        and an apt step for what is missing) is not run inside Spack."""
        make("unit", *self._petsc_args())
        for t in ("test_partition", "test_nodeplan", "test_veckernels", "test_levels", "test_cmrcm", "test_sor"):
            Executable(join_path("build", "tests", t))()

    @property
    def libs(self):
        return find_libraries("libpetscaijhybrid", self.prefix.lib, shared=True, recursive=False)

    @property
    def headers(self):
        return find_headers("petscaijhybrid", self.prefix.include, recursive=False)

    def _environment(self, env):
        env.prepend_path("LD_LIBRARY_PATH", self.prefix.lib)
        env.prepend_path("PKG_CONFIG_PATH", join_path(self.prefix.lib, "pkgconfig"))
        if self.spec.satisfies("+python"):
            env.prepend_path("PYTHONPATH", join_path(self.prefix, self.spec["python"].package.purelib))

    def setup_run_environment(self, env):
        self._environment(env)

    def setup_dependent_build_environment(self, env, dependent_spec):
        self._environment(env)

    def setup_dependent_run_environment(self, env, dependent_spec):
        self._environment(env)

    def test_ex1(self):
        """build examples/ex1 against the installed library, run it at 2 ranks x 2 threads"""
        examples = join_path(self.prefix.share, "petsc-aijhybrid", "examples")
        copy_tree(examples, "examples")
        with working_dir("examples"):
            make = which("make")
            make("ex1", "AIJHYBRID_DIR={0}".format(self.prefix), *self._petsc_args())
            mpiexec = which(join_path(self.spec["mpi"].prefix.bin, "mpiexec"), required=True)
            env["OMP_NUM_THREADS"] = "2"
            args = ["-n", "2"]
            if self.spec.satisfies("^openmpi"):
                args += ["--oversubscribe", "--bind-to", "none"]  # 2 ranks x 2 threads, whatever the cores
                if os.getuid() == 0:
                    args.append("--allow-run-as-root")  # test machines and containers
            out = mpiexec(*args, "./ex1", "-n", "12", "-mat_type", "aijhybrid", output=str, error=str)
            assert "matrix type mpiaijhybrid, 2 rank(s) x 2 thread(s)" in out, out
            assert "CG + Jacobi:" in out, out

    def test_python_import(self):
        """import petsc_aijhybrid: petsc4py loads the installed library"""
        if not self.spec.satisfies("+python"):
            raise SkipTest("built without +python")
        python = which(self.spec["python"].command.path, required=True)
        out = python("-c", "import petsc_aijhybrid as p; print(p.library_path())", output=str, error=str)
        assert self.prefix.lib in out, out
