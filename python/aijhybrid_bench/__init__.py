"""Benchmark suite of petsc-aijhybrid: ``python -m aijhybrid_bench --config <name|file>``.

Modules: config (config files, variants, layouts), layout (core check, launch and binding),
worker (one MPI job: timing, partition info, solves), stream (STREAM triad in the same job),
model (flop and byte model, ratios), report (run record, table), plots (PNGs), machine
(machine and software description), matrices (the seeded benchmark matrices, assembled in parallel
into any type), sfexchange (the halo exchange alone). docs/benchmarks.md documents
the procedure.

This package is not part of the bindings (``petsc_aijhybrid``, which never imports it); its jobs
import them. Importing this package does not import petsc4py: the driver runs outside MPI and
starts the jobs.
"""
