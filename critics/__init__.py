"""efficiency-critic: APPROVE or REVISE draft plans that waste GPUs or wall-clock."""
