"""Tests of loopspec.cli."""
