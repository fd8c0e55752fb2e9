"""Hand-written conformance cases, one table per spec half."""
