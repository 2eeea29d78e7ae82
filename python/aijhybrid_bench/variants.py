"""Building the matrices of one benchmark case: the generated aij matrix, and each variant of the
spec made from it (a copy converted in place, a matrix assembled with its type from the same CSR
arrays, or one generated with its type) with its options; variants that would run the same code
as an earlier one are marked equivalent and not measured again."""

import ctypes
import shlex

from .job import is_hybrid, rss_now
from .timing import calibrate, fill_x


class Variant:
    """One matrix type with its options, built for one case on one group of ranks (job.Group): the
    record it adds to the results, its matrix and vectors while it is measured, its timing samples
    and, per sample, the choices the plugin had in force (timing.choice)."""

    def __init__(self, spec, index, group):
        self.spec = spec
        self.label = spec["label"]
        self.index = index
        self.group = group
        self.prefix = "bv%d_" % index
        self.A = self.x = self.y = None
        self.rec = {"label": self.label, "type": spec["type"], "options": spec.get("options", ""), "status": "ok"}
        if spec.get("paired_of"):
            self.rec.update(paired_of=spec["paired_of"], run_as=group.layout, ranks=group.ranks, threads=group.threads)
        self.samples = []
        self.choices = []
        self.batch = 1

    def release(self):
        for o in (self.A, self.x, self.y):
            if o is not None:
                o.destroy()
        self.A = self.x = self.y = None


def option_pairs(options):
    """'-a 1 -b -c x' -> [('a', '1'), ('b', None), ('c', 'x')]."""
    toks = shlex.split(options or "")
    out, i = [], 0
    while i < len(toks):
        k = toks[i]
        if not k.startswith("-"):
            raise ValueError("option string %r: %r is not an option" % (options, k))
        if i + 1 < len(toks) and not (toks[i + 1].startswith("-") and not _is_number(toks[i + 1])):
            out.append((k.lstrip("-"), toks[i + 1]))
            i += 2
        else:
            out.append((k.lstrip("-"), None))
            i += 1
    return out


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def sf_options(pairs):
    """The PetscSF options (-sf_*) of an option list: PETSc reads them without a prefix."""
    return [(k, val) for k, val in pairs if k.startswith("sf_")]


def _set_options(job, prefix, pairs):
    opts = job.PETSc.Options()
    for k, v in pairs:
        opts.setValue(prefix + k, "" if v is None else v)


def _clear_options(job, prefix, pairs):
    opts = job.PETSc.Options()
    for k, _ in pairs:
        opts.delValue(prefix + k)


def generate(job, case, group):
    """The case's matrix as aij on the ranks of group, and the record of the case with its size and cost."""
    from . import model

    PETSc, comm, matrices, spec = job.PETSc, group.comm, job.matrices, job.spec
    rec = {"matrix": case["name"], "label": case["label"], "rows_requested": case["rows"], "params": case["params"], "path": case.get("path")}
    if case.get("past_cache"):  # grown past the last-level cache (config.matrix_cases)
        rec["past_cache"] = dict(case["past_cache"])
    try:
        rec["description"] = matrices.describe(case["name"], case["rows"], seed=spec["seed"], path=case.get("path"), **case["params"])
    except Exception as e:  # describe is informational
        rec["description"] = {"error": "%s: %s" % (type(e).__name__, e)}
    job.log("%s rows=%s: generating" % (case["name"], case["rows"]))
    r0 = rss_now()
    t0 = group.wtime_barrier()
    base = matrices.create(case["name"], case["rows"], comm=comm, mat_type="aij", seed=spec["seed"], path=case.get("path"), **case["params"])
    rec["generate_s"] = group.wtime_barrier() - t0
    rec["generate_rss_delta_bytes_sum"] = group.sum(rss_now() - r0)
    M, N = base.getSize()
    nnz = int(base.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"])
    rec.update(rows=M, cols=N, nnz=nnz, nnz_per_row=nnz / M if M else 0,
               int_bytes=PETSc.IntType().itemsize, scalar_bytes=PETSc.ScalarType().itemsize)
    rec["bytes"] = model.bytes_per_product(M, N, nnz, group.size, rec["scalar_bytes"], rec["int_bytes"])
    rl = base.getOwnershipRange()
    local = comm.gather((rl[1] - rl[0], int(base.getInfo(PETSc.Mat.InfoType.LOCAL)["nz_used"])), root=0)
    if group.rank == 0:
        rec["rank_rows"] = [l[0] for l in local]
        rec["rank_nnz"] = [l[1] for l in local]
    return base, rec


def rhs(job, base, rec):
    """The right-hand side of the solves: the generator's, or A * ones."""
    if hasattr(job.matrices, "rhs"):
        rec["rhs"] = "matrices.rhs"
        return job.matrices.rhs(base)
    ones = base.createVecRight()
    ones.set(1.0)
    b = base.createVecLeft()
    base.mult(ones, b)
    ones.destroy()
    rec["rhs"] = "A * ones"
    return b


def build_all(job, case, base, group, specs, first_index=0):
    """Every variant of specs for this case on the ranks of group: built, skipped (a pure-MPI type in
    a threaded layout is not listed; a missing package is), failed, or equivalent to an earlier one."""
    spec, PETSc = job.spec, job.PETSc
    hypre = bool(PETSc.Sys.hasExternalPackage("hypre"))
    M = base.getSize()[0]
    variants, seen = [], {}
    for i, vs in enumerate(specs, first_index):
        v = Variant(vs, i, group)
        if group.threads > 1 and not vs.get("threaded"):
            continue  # a pure-MPI type: measured in the layouts with one thread per rank
        req = vs.get("requires")
        if vs["type"] == "hypre" and not hypre:
            req = "hypre"
        if req and not PETSc.Sys.hasExternalPackage(req):
            v.rec.update(status="skipped", reason="PETSc has no %s" % req)
            variants.append(v)
            continue
        job.log("%s rows=%d: building %s" % (case["name"], M, v.label))
        try:
            build(job, v, case, base)
        except Exception as e:
            import sys
            import traceback

            v.rec.update(status="error", reason="%s: %s" % (type(e).__name__, e))
            sys.stderr.write("[rank %d] variant %s failed:\n%s" % (group.rank, v.label, traceback.format_exc()))
            variants.append(v)
            continue
        key = dedupe_key(v) if spec["dedupe"] else None
        if key is not None and key in seen:
            v.rec.update(status="equivalent", equivalent_to=seen[key],
                         reason="runs the same code as %s here (mode %s, %d thread(s))" % (seen[key], v.rec["mode"], v.rec["nthreads"]))
            v.release()
        elif key is not None:
            seen[key] = v.label
        variants.append(v)
    return variants


def build(job, v, case, base):
    """Build v's matrix and vectors with its options, warm it up and choose its batch size."""
    spec, ph, g = job.spec, job.ph, v.group
    pairs = option_pairs(v.spec.get("options", ""))
    sfpairs = sf_options(pairs)
    pairs = [p for p in pairs if p not in sfpairs]
    if is_hybrid(v.spec["type"]) and not any(k == "mat_aijhybrid_num_threads" for k, _ in pairs):
        pairs.append(("mat_aijhybrid_num_threads", str(g.threads)))
    v.rec["options_set"] = " ".join("-%s%s" % (k, "" if val is None else " " + val) for k, val in pairs + sfpairs)
    r0 = rss_now()
    t0 = g.wtime_barrier()
    how = v.spec.get("build", spec["build"])
    if how == "convert" and v.spec["type"] not in ("aij", "aijhybrid", "seqaijhybrid" if g.size == 1 else "mpiaijhybrid"):
        how = "csr"  # PETSc 3.18's MatConvert_MPIAIJ_MPISELL leaves the column layout unset: assemble natively
    if sfpairs and how == "convert" and not is_hybrid(v.spec["type"]):
        how = "csr"  # a copy of an aij matrix shares its VecScatter: assemble one with the -sf_* options
    v.rec["build"] = how
    _set_options(job, "", sfpairs)
    if how == "direct":
        A = job.matrices.create(case["name"], case["rows"], comm=g.comm, mat_type=v.spec["type"], seed=spec["seed"], path=case.get("path"), **case["params"])
    elif how == "csr":
        A = copy_csr(job, base, v.spec["type"])
    else:
        A = base.duplicate(copy=True)
        if v.spec["type"] != "aij":
            A.convert(v.spec["type"])  # in place (petsc4py: out=None)
    A.setOptionsPrefix(v.prefix)
    _set_options(job, v.prefix, pairs)
    A.setFromOptions()
    _clear_options(job, v.prefix, pairs)
    x, y = A.createVecs()
    fill_x(x)
    y.set(0.0)
    t1 = g.wtime_barrier()
    A.mult(x, y)  # also builds the plugin's caches (partition, exchange) if not built at assembly
    _clear_options(job, "", sfpairs)
    t2 = g.wtime_barrier()
    v.A, v.x, v.y = A, x, y
    calibrate(job, v, t2 - t1)
    v.rec.update(mat_type=A.getType(), build_s=t1 - t0, first_product_s=t2 - t1, rss_delta_bytes_sum=g.sum(rss_now() - r0))
    if is_hybrid(v.spec["type"]):
        v.rec["prefetch"] = g.comm.allgather(ph.get_prefetch(A)[1])  # per rank, after the warm-up: nonzeros ahead, 0 off
        v.rec["mode"] = ph.get_mode(A)
        v.rec["partition"] = ph.get_partition_type(A)
        v.rec["nthreads"] = ph.get_num_threads(A)
    return v


def dedupe_key(v):
    """What decides the code an aijhybrid variant runs here; None for other types."""
    if not is_hybrid(v.spec["type"]):
        return None
    rest = tuple(sorted((k, val) for k, val in option_pairs(v.rec["options_set"]) if k not in ("mat_aijhybrid_mode", "mat_aijhybrid_partition")))
    return (v.rec["mat_type"], v.rec["mode"], v.rec["partition"] if v.rec["nthreads"] > 1 else "*", v.rec["nthreads"], rest)


def _preallocate(job, A, dnnz, onnz):
    """MatXAIJSetPreallocation (AIJ, BAIJ, hypre, ...) and the SELL preallocations, which petsc4py
    3.18's setPreallocationNNZ does not reach; called through the libpetsc the plugin links."""
    import numpy as np

    PETSc = job.PETSc
    lib = job.ph.load()
    I = ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32
    d = np.ascontiguousarray(dnnz, dtype=PETSc.IntType)
    o = np.ascontiguousarray(onnz, dtype=PETSc.IntType)
    dp, op = d.ctypes.data_as(ctypes.c_void_p), o.ctypes.data_as(ctypes.c_void_p)
    mat = ctypes.c_void_p(A.handle)
    calls = [("MatXAIJSetPreallocation", (mat, I(1), dp, op, None, None)),
             ("MatSeqSELLSetPreallocation", (mat, I(0), dp)),
             ("MatMPISELLSetPreallocation", (mat, I(0), dp, I(0), op))]
    for name, args in calls:
        err = getattr(lib, name)(*args)
        if err:
            raise PETSc.Error(err)


def copy_csr(job, base, mat_type):
    """A matrix of mat_type with base's entries, type set before preallocation and assembly."""
    import numpy as np

    PETSc = job.PETSc
    ia, ja, a = base.getValuesCSR()
    cs, ce = base.getOwnershipRangeColumn()
    inside = ((ja >= cs) & (ja < ce)).astype(np.int64)
    csum = np.concatenate([[0], np.cumsum(inside)])
    dnnz = (csum[ia[1:]] - csum[ia[:-1]]).astype(PETSc.IntType)
    onnz = (np.diff(ia) - dnnz).astype(PETSc.IntType)
    A = PETSc.Mat().create(comm=base.getComm())
    A.setSizes(base.getSizes(), base.getBlockSize())
    A.setType(mat_type)
    _preallocate(job, A, dnnz, onnz)
    A.setValuesCSR(ia, ja, a)
    A.assemble()
    return A
