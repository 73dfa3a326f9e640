"""Evidence engines."""
