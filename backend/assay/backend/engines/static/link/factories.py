"""Model ids and vendors a model factory of the tree is given by its callers in other modules.

``def get_llm(model_name, model_provider): return init_chat_model(model_name, model_provider=model_provider)`` in
``utils/llm.py`` names neither: the analyzer keeps on the call's model site which parameters give them
(``ModelSite.factoryParams``). Each call of the function anywhere in the tree that passes them as literals
(``get_llm("gemini-2.5-flash", "google_genai")``, ``CallFact.literals``) chooses a provider and a model there:
a model use at that call, its vendor word read as the pack's vendors read it (``google_genai`` is Google's;
``"openai:gpt-4o"`` names its vendor before the colon), else the factory site's own provider. A call passing
nothing literal adds nothing; the factory's own site stays as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import FileFacts, ModelSite
from assay.backend.engines.static.link.settings import provider_of
from assay.backend.engines.static.pyast.rules import compile_rules
from assay.backend.engines.static.rules.pack import RulePack

if TYPE_CHECKING:
    from assay.backend.engines.static.link.graph import Fn


def factory_models(files: list[FileFacts], functions: dict[str, Fn], rules: RulePack) -> Iterator[ModelSite]:
    """A model use at each call of a model factory that passes its model id or vendor literally."""
    factories = {
        m.factoryParams["function"]: m
        for f in files
        for m in f.models
        if m.factoryParams and "function" in m.factoryParams
    }
    if not factories:
        return
    vendors = compile_rules(rules).vendors
    made_by = {fid: factories[fn.facts.qualname] for fid, fn in functions.items() if fn.facts.qualname in factories}
    for fn in functions.values():
        for call in fn.calls:
            if not call.literals:
                continue
            target = fn.targets.get(call.callee)
            site = made_by.get(target) if target is not None else None
            if site is None or site.factoryParams is None or target is None:
                continue
            params = functions[target].params
            model = _given(call.literals, site.factoryParams.get("model"), params)
            vendor = _given(call.literals, site.factoryParams.get("provider"), params)
            if model is None and vendor is None:
                continue
            if vendor is None and model is not None and ":" in model and model.split(":", 1)[0] in vendors:
                vendor, model = model.split(":", 1)
            provider = vendors.get(vendor, site.provider) if vendor is not None else site.provider
            if model is not None and provider in ("unknown", "langchain"):
                provider = provider_of(model, rules) or provider
            at = call.location
            yield site.model_copy(
                update={
                    "id": short_id("mdl", at.path, at.line, at.column, site.ruleId),
                    "provider": provider,
                    "location": at,
                    "model": model if model is not None else site.model,
                    "factoryParams": None,
                }
            )


def _given(literals: dict[str, str], param: str | None, params: list[str]) -> str | None:
    """What a call passes literally for ``param``: by keyword, else at the parameter's position."""
    if param is None:
        return None
    if param in literals:
        return literals[param]
    index = params.index(param) if param in params else -1
    return literals.get(str(index)) if index >= 0 else None
