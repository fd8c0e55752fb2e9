"""Tests of loopspec.vectors."""
