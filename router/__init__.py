"""Width-aware backend router: plan the GCP/SLURM/RunPod ladder as data, then walk it."""

# The one version of the package (pyproject.toml reads it); all three commands
# print it with --version.
__version__ = "0.2.0"
