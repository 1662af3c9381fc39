"""Backends the dispatcher walks: GCP, SLURM, RunPod. Each imports its SDK lazily."""
