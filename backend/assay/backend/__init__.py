"""The assurance service: API, data model, engines, evaluation and artifacts."""
