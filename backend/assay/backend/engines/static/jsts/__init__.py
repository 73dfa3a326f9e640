"""The JavaScript / TypeScript half of the static engine, on tree-sitter (entry: ``js_analyzer``)."""
