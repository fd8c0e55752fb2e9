"""Tests of loopspec.check."""
