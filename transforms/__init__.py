"""Transformation families: facts -> the files a business really keeps.

`transforms.registry` maps "family/kind" to a Transformer class; each family's package
imports its kind modules (one line per kind). See `transforms.base` for the contract.
"""
