"""Tests of loopspec.specdoc."""
