"""Persistence: the only package that talks SQL (SQLAlchemy 2 models, sessions, repositories)."""
