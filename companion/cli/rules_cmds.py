"""Commands: placeholder until written."""

from ._app import app  # noqa: F401
