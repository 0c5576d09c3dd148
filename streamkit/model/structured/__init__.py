"""Structured output read back from a response, whole or while it streams.

- :mod:`.parse`: ``response.parse(Model)``, the answer text or one tool call's
  arguments validated into a pydantic model;
- :mod:`.shapes`: a model's partial twin (every field optional), and the shape
  of each part of its type, which says how that part reads JSON;
- :mod:`.partial`: the incremental validation that fills the twin as the JSON
  streams;
- :mod:`.reader`: the partial output of a stream, event by event.
"""
