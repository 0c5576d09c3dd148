"""Conversions between streamkit's model and the frameworks users already run.

One module per framework, each importing its framework at the top: importing
``streamkit`` imports none of them, and ``streamkit.adapters.langchain`` needs
``langchain-core`` installed (``pip install 'streamkit-llm[adapters]'``).

- :mod:`streamkit.adapters.agentscope`: agentscope 2.0.11's ``ChatResponse``;
- :mod:`streamkit.adapters.langchain`: LangChain ``AIMessage`` / ``AIMessageChunk``
  (standard content blocks v1), and events -> chunks;
- :mod:`streamkit.adapters.pydantic_ai`: pydantic-ai ``ModelResponse`` parts;
- :mod:`streamkit.adapters.aiohttp`: an ``aiohttp.ClientResponse`` as a stream source;
- :mod:`streamkit.adapters.autogen`: ``StreamkitChatCompletionClient``, autogen_core's
  ``ChatCompletionClient`` over :class:`streamkit.Client`;
- :mod:`streamkit.adapters.autogen_tools`: autogen workbenches as streamkit's and
  streamkit's as autogen's (``from_autogen_workbench`` / ``to_autogen_workbench``).

Each module's docstring has the table of what maps where and what, if anything,
the other side has no place for.
"""
