"""Tests of loopspec.loop."""
