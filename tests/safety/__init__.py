"""Tests of what keeps risky actions held and hidden entities hidden."""
