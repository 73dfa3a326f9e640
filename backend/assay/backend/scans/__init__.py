"""Scans: qualified scan intake, their storage, bound sources, the Evidence Bundle and its schema."""
