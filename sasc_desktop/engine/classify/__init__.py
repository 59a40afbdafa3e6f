"""Sensitivity classification per persona: features, models, honest evaluation, explanations.

Names are imported lazily (PEP 562), so a worker process that unpickles a feature function
imports numpy and scipy, not scikit-learn (about 1.5 s of CPU per worker)."""
from importlib import import_module

# Plain constants (no import of scikit-learn): the CLI builds its argument parser from them.
KINDS = ("lr", "svm", "or")
DEFAULT_KIND = "lr"  # logistic regression: the default, and the fast incremental retrain

_WHERE = {
    "api": ("ModelInfo", "NoModelError", "cross_validate", "doc_matrix", "explain", "fit_model", "load_model",
            "model_info", "probabilities", "probabilities_for", "train"),
    "features": ("DocFields", "FeatureOptions", "FeatureSpace", "addresses", "infer_internal_domains", "is_internal",
                 "metadata_features", "network_centralities", "network_features", "pii_features", "project_features",
                 "project_internal_domains"),
    "judgments_io": ("ENRON_REASONS", "check_persona", "enron_judgments", "enron_reasons", "import_categories",
                     "import_judgments", "persona_ids", "read_cats", "read_reasons", "save_reasons",
                     "sensitivity_reasons", "training_labels"),
    "model": ("SensitivityClassifier", "best_threshold"),
    "naming": ("persona_file_part",),
    "pii": ("PII_KINDS", "PiiHit", "aba_valid", "detect_pii", "iban_valid", "luhn_valid"),
}
_MODULE_OF = {name: mod for mod, names in _WHERE.items() for name in names}

__all__ = [
    "DEFAULT_KIND", "KINDS",
    "ModelInfo", "NoModelError", "cross_validate", "doc_matrix", "explain", "fit_model", "load_model", "model_info",
    "probabilities", "probabilities_for", "train", "DocFields", "FeatureOptions", "FeatureSpace", "addresses",
    "infer_internal_domains", "is_internal", "metadata_features", "network_centralities", "network_features",
    "pii_features", "project_features", "project_internal_domains", "check_persona", "enron_judgments",
    "import_categories", "import_judgments", "persona_ids", "read_cats", "training_labels", "ENRON_REASONS", "enron_reasons",
    "read_reasons", "save_reasons", "sensitivity_reasons", "SensitivityClassifier",
    "best_threshold", "persona_file_part", "PII_KINDS", "PiiHit", "aba_valid", "detect_pii", "iban_valid", "luhn_valid",
]


def __getattr__(name):
    mod = _MODULE_OF.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
