"""Running a call's plan: the hooks of a chain, cold or warm, folded into one decision."""
