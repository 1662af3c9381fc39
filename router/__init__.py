"""Width-aware backend router: plan the GCP/SLURM/RunPod ladder as data, then walk it."""
