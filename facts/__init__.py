"""factforge kernel: fact model, hashing, decomposition. No Dagster here."""

GENERATOR_VERSION = "0.1.0"
