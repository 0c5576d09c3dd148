"""streamkit's version and the name it is installed under: the one place each is
written (the build reads the version from here; pyproject.toml's ``name`` is
:data:`DISTRIBUTION`, checked by tests/test_distribution.py)."""

__version__ = "0.1.0"

#: The distribution on the package index; the import name stays ``streamkit``
#: (``streamkit`` on the index is someone else's package).
DISTRIBUTION = "streamkit-llm"


def install_line(extra: str) -> str:
    """The shell line that installs one of pyproject.toml's extras (which says
    what each holds), for a message that asks for it."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"
