"""The database's schema, brought up to date by Alembic's migrations (``migrations/versions``): a new server
starts on an empty database, an upgraded one migrates the database it finds, before serving anything. A test
checks that the migrations build exactly the tables of :mod:`cer_theory.server.db` (Alembic's comparison finds no
difference), so a change to a model cannot ship without its migration."""

from __future__ import annotations

from importlib import resources

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine


def config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("cer_theory.server") / "migrations"))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine) -> None:
    """Apply every migration the database lacks (none on a database already at the head)."""
    command.upgrade(config(engine), "head")


__all__ = ["config", "upgrade"]
