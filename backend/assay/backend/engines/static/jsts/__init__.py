"""The JavaScript / TypeScript front-end of the static engine, on tree-sitter (entry: ``frontend.analyze_javascript``)."""
