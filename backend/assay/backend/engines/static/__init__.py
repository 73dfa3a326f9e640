"""The static engine: analyse an AI system's source tree into an Evidence Bundle, never executing it."""
