"""Signed certification reports: canonical JSON, Ed25519 keys, DSSE/in-toto envelopes, HTML.

``certify`` runs a plan (``plan``) whose entries are section kinds from the registry
(``registry``, ``sections/``), writes report.json (``canonical``), signs an in-toto statement
over every input (``dsse``, ``signing``) and renders the human report (``html``).
"""
