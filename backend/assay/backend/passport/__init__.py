"""The passport: an in-toto Statement v1 about one Evaluation, in a DSSE envelope signed with Ed25519."""
