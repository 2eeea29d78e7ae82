"""Bad values of every -mat_aijhybrid_* option MatSetFromOptions() reads (used by workers/badinput.py;
tests/test_bad_input.py checks that every one of them is here): (name without -mat_aijhybrid_, value,
substrings the message must hold besides the option's name). The factor options, read when a factor
is made, are tested by tests/test_preconditioners.py."""

NO_INT = "no integer value"
LOGICAL = "Unknown logical value"

BAD_OPTIONS = [
    ("num_threads", "0", ["'0'", "at least 1 thread"]),
    ("num_threads", "-3", ["'-3'", "allowed bound -1"]),
    ("num_threads", "5000", ["'5000'", "allowed bound 4096"]),
    ("num_threads", "abc", ["'abc'", NO_INT]),
    ("num_threads", "2.5", ["'2.5'", NO_INT]),
    ("num_threads", "99999999999999999999", ["'99999999999999999999'", "beyond the"]),
    ("num_threads", "4294967299", ["'4294967299'"]),
    ("num_threads", "", ["needs a value"]),
    ("mode", "bogus", ["'bogus'", "auto vector task"]),
    ("mode", "2", ["'2'", "auto vector task"]),
    ("partition", "bogus", ["'bogus'", "rows nnz diffusion optimal"]),
    ("partition", "1", ["'1'", "rows nnz diffusion optimal"]),
    ("row_cost", "-1", ["'-1'"]),
    ("row_cost", "abc", ["'abc'", "no numeric value"]),
    ("row_cost", "inf", ["'inf'"]),
    ("row_cost", "nan", ["'nan'"]),
    ("row_cost", "1e400", ["'1e400'"]),
    ("row_cost", "DEFAULT", ["'DEFAULT'"]),
    ("diffusion_tol", "-1", ["'-1'"]),
    ("diffusion_tol", "abc", ["'abc'", "no numeric value"]),
    ("diffusion_tol", "nan", ["'nan'"]),
    ("diffusion_max_it", "-1", ["'-1'", "allowed bound 0"]),
    ("diffusion_max_it", "abc", ["'abc'", NO_INT]),
    ("diffusion_max_it", "99999999999999999999", ["beyond the"]),
    ("first_touch", "maybe", ["'maybe'", LOGICAL]),
    ("first_touch", "2", ["'2'", LOGICAL]),
    ("prefetch", "-5", ["'-5'", "allowed bound -1"]),
    ("prefetch", "2000000", ["'2000000'", "allowed bound 1048576"]),
    ("prefetch", "abc", ["'abc'", NO_INT]),
    ("prefetch", "1.5", ["'1.5'", NO_INT]),
    ("task_share", "2", ["'2'"]),
    ("task_share", "-0.5", ["'-0.5'", "a share from 0 to 1, or -1"]),
    ("task_share", "-2", ["'-2'"]),
    ("task_share", "nan", ["'nan'"]),
    ("task_share", "abc", ["'abc'", "no numeric value"]),
    ("node_aware", "maybe", ["'maybe'", LOGICAL]),
    ("node_aware", "yes please", ["'yes please'", LOGICAL]),
    ("node_size", "-3", ["'-3'", "allowed bound 0"]),
    ("node_size", "abc", ["'abc'", NO_INT]),
    ("node_size", "1.5", ["'1.5'", NO_INT]),
    ("sor_serial", "maybe", ["'maybe'", LOGICAL]),
    ("factor_blocks", "bogus", ["'bogus'", "none thread"]),
    ("factor_blocks", "1", ["'1'", "none thread"]),
]

# several options at once, one of them bad: none is applied (each pair: options, message substrings)
BAD_SETS = [
    ([("num_threads", "3"), ("task_share", "2")], ["-bad_mat_aijhybrid_task_share"]),
    ([("partition", "rows"), ("mode", "task"), ("first_touch", "maybe")], ["-bad_mat_aijhybrid_first_touch"]),
    ([("node_aware", "1"), ("node_size", "2"), ("row_cost", "-1")], ["-bad_mat_aijhybrid_row_cost"]),
    ([("prefetch", "0"), ("diffusion_tol", "0.5"), ("diffusion_max_it", "x")], ["-bad_mat_aijhybrid_diffusion_max_it"]),
    ([("sor_serial", "1"), ("node_size", "2"), ("num_threads", "0")], ["-bad_mat_aijhybrid_num_threads"]),
    ([("factor_blocks", "thread"), ("sor_serial", "maybe")], ["-bad_mat_aijhybrid_sor_serial"]),
]

# misspelt names (without -mat_aijhybrid_): MatSetFromOptions leaves them unused, -options_left reports them
UNKNOWN_NAMES = ["num_thread", "partitions", "firsttouch", "NUM_THREADS_"]
