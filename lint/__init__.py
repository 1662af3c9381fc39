"""workflow-lint: keep guidance surfaces, §9 plan blocks and Python code in step
with the router's ladder config."""
