"""Many deals × backends, each task in a sandboxed worker process, results as JSON lines.

The parts, in the order a run uses them:

- `plan`: the tasks, with every user error found before any task runs;
- `record`: `Record`, one results line, written by bench and read by report;
- `worker`: what runs inside a worker process: one task → one Record;
- `pool`: `SandboxPool`, worker processes fed batches, a hard wall limit per task;
- `cluster`: the same pool on every worker of a Dask cluster, fed in chunks;
- `run`: `run_bench`, which skips finished tasks, runs the rest and writes each line;
- `report` and `plots`: the report of a results file, and its plots.

A backend entry may name a variant (`sat:glucose4`, `cpsat:boolean`); the registry
parses it (`blackhole.backends.split_label`), and the entry as written is the record's
`backend`.
"""

from blackhole.bench.plan import DEFAULT_TIMEOUT, GRACE, Task, default_backends, plan_tasks
from blackhole.bench.record import Record, read_results
from blackhole.bench.run import DEFAULT_MEMORY_MB, BenchEvent, BenchSummary, run_bench

__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_TIMEOUT", "GRACE", "BenchEvent", "BenchSummary",
           "Record", "Task", "default_backends", "plan_tasks", "read_results", "run_bench"]
