"""Evidence intake: binders, adapters, the intake routes and their receipts (docs/intake.md)."""

# The adapters a binder can name (``adapters.ADAPTERS`` holds each one's statements and reader): plain names
# here, so that ``assay admin``'s parser lists them without loading the readers.
ADAPTER_IDS: tuple[str, ...] = ("log", "otlp", "sarif", "structured")
