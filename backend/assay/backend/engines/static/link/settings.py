"""Model ids read from another module's settings, settled once every file's facts are known.

``Agent(model=configs.agent_settings.model)`` with ``configs = Config()`` imported from ``config.py``: the
analyzer of the agent's file records the chain it reads (``ModelSite.modelRef``); ``config.py``'s facts give
its classes' field defaults (``FileFacts.constants``) and the classes its fields are typed by
(``FileFacts.bindings``). The default the chain ends at is the call's model id; when only that id can say
whose model it is (an agent class no vendor word names), the provider is read from it as the analyzer would
(a vendor before a slash or colon, a model family: ``gemini-`` is Google's), and a vendor prefix it names is dropped
from the model id. ``model=get_model()`` of another module reads ``<qualname>()``: what the function returns on its
default path, recorded by its module (``SettingsLogic.function_results``). A chain that ends at nothing the code
spells out leaves the model null, and a site whose provider nothing says is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from assay.backend.engines.static.facts import FileFacts, ModelSite
from assay.backend.engines.static.pyast.role_rules import compile_roles
from assay.backend.engines.static.pyast.rules import compile_rules
from assay.backend.engines.static.pyast.settings import settings_default
from assay.backend.engines.static.rules.pack import RulePack


def settle_models(files: Sequence[FileFacts], rules: RulePack) -> Iterator[ModelSite]:
    """Every model site of the tree, those reading another module's settings settled."""
    pending = any(m.modelRef for f in files for m in f.models)
    defaults: dict[str, str] = {}
    types: dict[str, str] = {}
    if pending:
        for f in files:
            if f.language == "python":
                defaults.update(f.constants)
                types.update(f.bindings)
    for f in files:
        for site in f.models:
            if site.modelRef is None:
                yield site
                continue
            model = _default(site.modelRef, defaults, types)
            provider = site.provider or provider_of(model, rules)
            split = compile_rules(rules).vendor_split(model) if model is not None else None
            if split is not None and provider in (split[0], "unknown"):
                # ``"openai:gpt-4o"`` read for an agent no vendor word names: OpenAI's ``gpt-4o``.
                provider, model = split
            if provider:
                yield site.model_copy(update={"provider": provider, "model": model, "modelRef": None})


def _default(ref: str, defaults: dict[str, str], types: dict[str, str]) -> str | None:
    """The default ``ref`` ends at, read as written or without its leading package segments (a module
    named from inside its own package: ``customer_service.config.Config`` is the tree's ``config.Config``)."""
    parts = ref.split(".")
    for start in range(len(parts) - 2):
        found = settings_default(".".join(parts[start:]), defaults, types)
        if found is not None:
            return found
    return None


def provider_of(model: str | None, rules: RulePack) -> str | None:
    """Whose model a model id names, as the analyzer reads it: a vendor before a slash or colon, a model family."""
    if model is None:
        return None
    split = compile_rules(rules).vendor_split(model)
    if split is not None:
        return split[0]
    roles = compile_roles(rules)
    return next((p for start, p in roles.model_id_prefixes if model.lower().startswith(start)), None)
