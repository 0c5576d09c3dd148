"""What the tests share besides fixtures: the recordings and how to read them,
driving a parser, comparing responses, the conversations, the SDK oracles,
servers, fuzzers and the cross-wire matrix.

``pyproject.toml`` puts ``tests/`` on ``sys.path`` (pytest's ``pythonpath``), so
a test module anywhere below ``tests/`` imports them as ``support.<module>``;
``tests/conftest.py`` holds the fixtures and hooks only.
"""
