"""The assurance methodology: frozen evidence in, a deterministic Evaluation payload out (no LLM, no I/O)."""
