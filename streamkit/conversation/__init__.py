"""What you send: the conversation, the tools, the request.

- :mod:`.messages`: one message model for every provider;
- :mod:`.tools`: tools from Python functions (:func:`~streamkit.tool`), run on a
  model's calls; :mod:`.signature`, a function's parameters as a JSON schema;
  :mod:`.strict`, OpenAI's strict mode; :mod:`.docstrings`, parameter
  descriptions read from a docstring;
- :mod:`.workbench`: workbenches (autogen's), sets of tools with a lifecycle
  and state, given to a client beside functions; :func:`~streamkit.run_calls`;
- :mod:`.request`: :class:`~streamkit.Request`, what every wire format's request
  body stands for.

The wire packages (:mod:`streamkit.providers`) write and read these; nothing here
knows a wire field.
"""
