"""Helpers of the fault-injection suite (tests/test_faults_*.py): the ledger of faults
and bad inputs, process and output helpers for killed runs, hostile corpus sources and
generators of invalid configs."""
