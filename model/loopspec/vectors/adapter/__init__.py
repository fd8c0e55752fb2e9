"""The adapter protocol: the client the conformance tools speak and the model as a reference adapter."""
