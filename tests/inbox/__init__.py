"""Tests of loopspec.inbox."""
