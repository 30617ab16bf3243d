"""Round logs of the card tables: read, simulated and audited against the statute."""
