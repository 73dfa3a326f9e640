"""Evidence intake: binders, adapters, the intake routes and their receipts (docs/intake.md)."""
