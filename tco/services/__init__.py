"""Services of the tco app: what changes scenarios, runs and plans, and what evaluates them."""
