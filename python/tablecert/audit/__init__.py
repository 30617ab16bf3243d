"""Randomness audits: the shuffler battery, the NIST SP 800-22 RNG battery, calibration."""
