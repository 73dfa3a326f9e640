"""Storage: the engine and sessions, tables, migrations, WAL checkpoints, loop reads."""
