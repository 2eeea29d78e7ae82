"""petsc-aijhybrid for petsc4py: ``import petsc_aijhybrid`` registers the ``aijhybrid`` matrix type
and the ``hybrid`` vector type.

After the import, ``A.setType('aijhybrid')``, ``-mat_type aijhybrid`` (through ``PETSc.Options()``
and ``A.setFromOptions()``) and ``-dm_mat_type aijhybrid`` work in the running petsc4py, and so do
``v.setType('hybrid')``, ``-vec_type hybrid`` and ``-dm_vec_type hybrid`` (see ``petsc_aijhybrid.vec``) and
the PetscSF type ``nodeaware`` (``sf.setType('nodeaware')``, ``-sf_type nodeaware``).

The shared library is found, in order, from the environment variable ``AIJHYBRID_LIB``, the path
recorded by ``make install``, the package's own ``lib/`` (``pip install``), and the source tree's
``build/lib`` (or ``$AIJHYBRID_BUILD/lib``).
"""

from ._loader import library_path, load, petsc_version
from .api import (
    MODES,
    PARTITION_TYPES,
    SF_TYPE,
    get_diffusion,
    get_first_touch,
    get_exchange_stats,
    halo_sf,
    get_mode,
    get_node_aware,
    get_node_size,
    get_num_threads,
    get_partition,
    get_partition_info,
    get_partition_type,
    get_row_cost,
    get_prefetch,
    get_task_share,
    get_thread_times,
    reset_thread_times,
    set_diffusion,
    set_first_touch,
    set_mode,
    set_node_aware,
    set_node_size,
    set_num_threads,
    set_partition_type,
    set_row_cost,
    set_prefetch,
    set_task_share,
    sf_get_node_size,
    sf_get_stats,
    sf_set_node_size,
)
from .api import get_cmrcm_colors, get_factor_blocks, get_factor_info, get_sor_serial, set_cmrcm_colors, set_factor_blocks, set_sor_serial


from .vec import VEC_TYPES, create_vec, get_standard, get_threshold, set_partition, set_standard, set_threshold

__version__ = "0.1.0"

load()

__all__ = [
    "MODES",
    "VEC_TYPES",
    "create_vec",
    "get_standard",
    "get_threshold",
    "set_partition",
    "set_standard",
    "set_threshold",
    "PARTITION_TYPES",
    "SF_TYPE",
    "get_diffusion",
    "get_first_touch",
    "get_exchange_stats",
    "halo_sf",
    "get_mode",
    "get_node_aware",
    "get_node_size",
    "get_num_threads",
    "get_partition",
    "get_partition_info",
    "get_partition_type",
    "get_row_cost",
    "get_prefetch",
    "get_task_share",
    "get_thread_times",
    "library_path",
    "load",
    "petsc_version",
    "reset_thread_times",
    "set_diffusion",
    "set_first_touch",
    "set_mode",
    "set_node_aware",
    "set_node_size",
    "set_num_threads",
    "set_partition_type",
    "set_row_cost",
    "set_prefetch",
    "set_task_share",
    "sf_get_node_size",
    "sf_get_stats",
    "sf_set_node_size",
    "get_cmrcm_colors",
    "get_factor_blocks",
    "get_factor_info",
    "get_sor_serial",
    "set_cmrcm_colors",
    "set_factor_blocks",
    "set_sor_serial",
]
