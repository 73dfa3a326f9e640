"""The Python front-end of the static engine, on the standard library's ``ast`` (entry: ``frontend.analyze_python``)."""
