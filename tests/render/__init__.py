"""Tests of loopspec.render: the timeline values, the drawing, the page, the browser."""
