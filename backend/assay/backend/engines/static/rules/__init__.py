"""The rule pack: what the engine recognises, as data (``*.json`` here, listed by ``pack.json``), with
its loader (``pack``) and the compiled name patterns the language front-ends share (``match``)."""
