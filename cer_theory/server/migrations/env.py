"""Alembic's environment for the course server: the engine comes from the caller (cer_theory.server.migrate)."""

from alembic import context

from cer_theory.server.db import Base

engine = context.config.attributes["engine"]
with engine.begin() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
