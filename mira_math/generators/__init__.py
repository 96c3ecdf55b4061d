"""Seeded family generators, the instance schema and the validity checks of MIRA-Math."""
