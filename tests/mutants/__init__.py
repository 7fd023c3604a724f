"""Mutation testing of the hidden checks through the real notebooks: see :mod:`tests.mutants.harness`."""
