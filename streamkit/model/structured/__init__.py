"""Structured output read back from a response, whole or while it streams.

- :mod:`.parse`: ``response.parse(Model)``, the answer text or one tool call's
  arguments validated into a pydantic model;
- :mod:`.partial`: a model's partial twin (every field optional) and the
  incremental validation that fills it;
- :mod:`.reader`: the partial output of a stream, event by event.
"""
