"""Shared values of the whole model (spec areas DATA, NOTIFY).

Frozen JSON values, messages and their ids, the inbox state, the two error types and the live
notifications.  Everything else imports these; this package imports nothing of loopspec.
"""
