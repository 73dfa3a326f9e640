"""The labelled corpus of real agent code (issue 13): labels, materialisation from mirrors, scoring."""
