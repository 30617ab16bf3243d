"""Conformance: a vendor's evaluator or a casino's configuration judged against the statutes."""
