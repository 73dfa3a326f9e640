"""Linking: the per-file facts of a tree joined into the bundle's models, tools, actions, gates, taint
flows and frontier. Language-neutral: the Python and JS/TS front-ends' facts follow one naming scheme.

``linker`` is the entry point (``link``); beside it ``graph`` (functions and callee resolution),
``gates`` (gates that hold after a call), ``taint`` (the taint pass), ``sqlflow`` (SQL text built from
model-chosen values), ``sources`` (tools built from lists, records and imports), ``tool_uses`` (tools
bound to the model calls that are given them) and ``returned`` (calls on what a function returns).
"""

from assay.backend.engines.static.link.linker import Linked, link

__all__ = ["Linked", "link"]
