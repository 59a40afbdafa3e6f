"""Sensitivity classification per persona: features, models, honest evaluation, explanations."""
from .api import (ModelInfo, NoModelError, cross_validate, doc_matrix, explain, fit_model, load_model, model_info,
                  probabilities, probabilities_for, train)
from .features import (DocFields, FeatureOptions, FeatureSpace, addresses, infer_internal_domains, is_internal,
                       metadata_features, network_centralities, network_features, pii_features, project_features,
                       project_internal_domains)
from .judgments_io import (ENRON_REASONS, check_persona, enron_judgments, enron_reasons, import_categories,
                           import_judgments, persona_ids, read_cats, read_reasons, save_reasons, sensitivity_reasons,
                           training_labels)
from .model import SensitivityClassifier, best_threshold
from .pii import PII_KINDS, PiiHit, aba_valid, detect_pii, iban_valid, luhn_valid

__all__ = [
    "ModelInfo", "NoModelError", "cross_validate", "doc_matrix", "explain", "fit_model", "load_model", "model_info",
    "probabilities", "probabilities_for", "train", "DocFields", "FeatureOptions", "FeatureSpace", "addresses",
    "infer_internal_domains", "is_internal", "metadata_features", "network_centralities", "network_features",
    "pii_features", "project_features", "project_internal_domains", "check_persona", "enron_judgments",
    "import_categories", "import_judgments", "persona_ids", "read_cats", "training_labels", "ENRON_REASONS", "enron_reasons",
    "read_reasons", "save_reasons", "sensitivity_reasons", "SensitivityClassifier",
    "best_threshold", "PII_KINDS", "PiiHit", "aba_valid", "detect_pii", "iban_valid", "luhn_valid",
]
