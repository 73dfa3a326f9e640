"""Issue 20, SQLAlchemy schema changes write to the database: a ``Table(...)`` created or dropped on an engine, and a
``MetaData``'s ``create_all``/``drop_all``, are db.write where a tool reaches them; building the ``Table`` object
itself touches nothing."""

from __future__ import annotations

from pyfix import analyse

SOURCE = (
    "from sqlalchemy import Column, Integer, MetaData, Table, create_engine\n"  # 1
    "from agents import function_tool\n"  # 2
    "\n"  # 3
    "engine = create_engine('sqlite:///app.db')\n"  # 4
    "metadata = MetaData()\n"  # 5
    "\n"  # 6
    "@function_tool\n"  # 7
    "def create_table(name: str) -> str:\n"  # 8
    "    table = Table(name, metadata, Column('id', Integer, primary_key=True))\n"  # 9
    "    table.create(engine)\n"  # 10
    "    return 'ok'\n"  # 11
    "\n"  # 12
    "@function_tool\n"  # 13
    "def reset() -> str:\n"  # 14
    "    metadata.drop_all(engine)\n"  # 15
    "    metadata.create_all(engine)\n"  # 16
    "    return 'ok'\n"  # 17
)


def test_schema_changes_are_database_writes() -> None:
    linked = analyse({"m.py": SOURCE})
    reached = {(a.actionClass, a.location.line) for a in linked.actions if a.reachedFrom}
    assert {("db.write", 10), ("db.write", 15), ("db.write", 16)} <= reached
    assert not any(line == 9 for _, line in reached)
