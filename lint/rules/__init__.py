"""workflow-lint rules. Each module checks one rule over an already-parsed file."""

RULES = ("ladder-drift", "stale-claim", "critic-drift", "plan-block", "dollar-cap")
