"""The spec as documents: traceability, state diagrams and the generated docs.

Renders ``docs/`` from the rule catalogue, the code's rule citations, the JSON Schemas and the
lifecycle table, and checks them up to date.
"""
