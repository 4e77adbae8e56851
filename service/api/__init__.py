"""HTTP blueprints, one ``bp`` per module."""
