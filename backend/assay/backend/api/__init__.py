"""HTTP routes, one module per route family; each exposes ``ROUTES: list[RouteSpec]``."""
