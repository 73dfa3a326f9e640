"""Assurance runs: request validation, the frozen plan, workers that claim and execute runs, and the
one-transaction persistence of immutable Evaluations."""
