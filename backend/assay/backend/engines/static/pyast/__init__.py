"""Pieces of the Python analyzer (``python_analyzer.py``) that stand on their own."""
