"""Evaluation harness (solvers, responders, transcripts): built in a later issue."""
