"""`backend-router simulate`: what going wide buys, measured.

The router's own dispatch walk (router/dispatch.py, the real backend
classes' rung logic) runs against simulated backends on a virtual clock,
driven by a capacity model (a YAML file, or estimates from the ledger), for
one or more policies, many times over. Modules, one job each:

- model.py: the capacity model file (load, bounds, file:line errors);
- ledger_model.py: a capacity model estimated from a ledger export;
- world.py: one run's virtual clock, random stream and stock processes;
- backends.py: simulated GCP, SLURM and RunPod backends;
- policies.py: which rungs a policy walks (always from planner.plan());
- runner.py: the Monte Carlo;
- stats.py: per-policy summaries (the JSON contract);
- report.py: text and JSON output;
- plots.py: makespan CDFs and where runs landed (matplotlib, `plot` extra).
"""
