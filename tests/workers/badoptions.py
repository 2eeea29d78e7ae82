"""Bad values of every -mat_aijhybrid_* option (used by workers/badinput.py; tests/test_bad_input.py
checks that every option of the matrix's option table is here): (name without -mat_aijhybrid_,
value, substrings the message must hold besides the option's name)."""

BOOLEAN = "a boolean (true, false, yes, no, on, off, 1, 0; no value: true)"

BAD_OPTIONS = [
    ("num_threads", "0", ["'0'", "integer from 1 to 4096"]),
    ("num_threads", "-3", ["'-3'", "integer from 1 to 4096"]),
    ("num_threads", "5000", ["'5000'", "integer from 1 to 4096"]),
    ("num_threads", "abc", ["'abc'", "integer from 1 to 4096"]),
    ("num_threads", "2.5", ["'2.5'", "integer"]),
    ("num_threads", "99999999999999999999", ["'99999999999999999999'", "integer from 1 to 4096"]),
    ("num_threads", "", ["needs a value", "integer from 1 to 4096"]),
    ("mode", "bogus", ["'bogus'", "one of auto, vector, task"]),
    ("mode", "2", ["'2'", "one of auto, vector, task"]),
    ("partition", "bogus", ["'bogus'", "one of rows, nnz, diffusion, optimal"]),
    ("partition", "1", ["'1'", "one of rows, nnz, diffusion, optimal"]),
    ("row_cost", "-1", ["'-1'", "finite real >= 0"]),
    ("row_cost", "abc", ["'abc'", "finite real >= 0"]),
    ("row_cost", "inf", ["'inf'", "finite"]),
    ("row_cost", "nan", ["'nan'", "finite"]),
    ("row_cost", "1e400", ["'1e400'", "finite"]),
    ("row_cost", "DEFAULT", ["'DEFAULT'", "finite real >= 0"]),
    ("diffusion_tol", "-1", ["'-1'", "finite real >= 0"]),
    ("diffusion_tol", "abc", ["'abc'", "finite real >= 0"]),
    ("diffusion_tol", "nan", ["'nan'", "finite"]),
    ("diffusion_max_it", "-1", ["'-1'", "integer >= 0"]),
    ("diffusion_max_it", "abc", ["'abc'", "integer >= 0"]),
    ("diffusion_max_it", "99999999999999999999", ["integer >= 0"]),
    ("first_touch", "maybe", ["'maybe'", BOOLEAN]),
    ("first_touch", "2", ["'2'", BOOLEAN]),
    ("prefetch", "-5", ["'-5'", "from 0 (none) to 1048576", "-1"]),
    ("prefetch", "2000000", ["'2000000'", "from 0 (none) to 1048576"]),
    ("prefetch", "abc", ["'abc'", "integer from 0 (none) to 1048576"]),
    ("prefetch", "1.5", ["'1.5'", "integer"]),
    ("task_share", "2", ["'2'", "a real from 0 to 1, or -1"]),
    ("task_share", "-0.5", ["'-0.5'", "a real from 0 to 1, or -1"]),
    ("task_share", "nan", ["'nan'", "a real from 0 to 1"]),
    ("task_share", "abc", ["'abc'", "a real from 0 to 1"]),
    ("node_aware", "maybe", ["'maybe'", BOOLEAN]),
    ("node_aware", "yes please", ["'yes please'", BOOLEAN]),
    ("node_size", "-3", ["'-3'", "integer >= 1, or 0"]),
    ("node_size", "abc", ["'abc'", "integer >= 1, or 0"]),
    ("node_size", "1.5", ["'1.5'", "integer >= 1, or 0"]),
    ("sor_serial", "maybe", ["'maybe'", BOOLEAN]),
    ("factor_solve", "bogus", ["'bogus'", "one of auto, threaded, serial"]),
    ("factor_solve", "1", ["'1'", "one of auto, threaded, serial"]),
    ("factor_check", "maybe", ["'maybe'", BOOLEAN]),
    ("factor_blocks", "bogus", ["'bogus'", "one of none, thread"]),
    ("factor_blocks", "1", ["'1'", "one of none, thread"]),
]

# several options at once, one of them bad: none is applied (each pair: options, message substrings)
BAD_SETS = [
    ([("num_threads", "3"), ("task_share", "2")], ["-bad_mat_aijhybrid_task_share"]),
    ([("partition", "rows"), ("mode", "task"), ("first_touch", "maybe")], ["-bad_mat_aijhybrid_first_touch"]),
    ([("node_aware", "1"), ("node_size", "2"), ("row_cost", "-1")], ["-bad_mat_aijhybrid_row_cost"]),
    ([("prefetch", "0"), ("diffusion_tol", "0.5"), ("diffusion_max_it", "x")], ["-bad_mat_aijhybrid_diffusion_max_it"]),
    ([("num_threads", "3"), ("num_thread", "3")], ["Unknown option -bad_mat_aijhybrid_num_thread"]),
    ([("sor_serial", "1"), ("factor_check", "1"), ("factor_solve", "sometimes")], ["-bad_mat_aijhybrid_factor_solve"]),
    ([("factor_blocks", "thread"), ("factor_check", "maybe")], ["-bad_mat_aijhybrid_factor_check"]),
]

# misspelt names: (name without -mat_aijhybrid_, substrings of the message)
UNKNOWN_NAMES = [
    ("num_thread", ["-bad_mat_aijhybrid_num_threads"]),
    ("partitions", ["-bad_mat_aijhybrid_partition"]),
    ("firsttouch", ["-bad_mat_aijhybrid_first_touch"]),
    ("NUM_THREADS_", ["-bad_mat_aijhybrid_num_threads"]),
]
