"""Benchmark suite of petsc-aijhybrid: ``python -m petsc_aijhybrid.bench --config <name|file>``.

Modules: config (config files, variants, layouts), layout (core check, launch and binding),
worker (one MPI job: timing, partition info, solves), stream (STREAM triad in the same job),
model (flop and byte model, ratios), report (run record, table), plots (PNGs), machine
(machine and software description). README.md, section "Benchmarks", documents the procedure.

Importing this package does not import petsc4py: the driver runs outside MPI and starts the jobs.
"""
