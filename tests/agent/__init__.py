"""Tests of the HA-free agent core."""
