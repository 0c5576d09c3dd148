"""The data model: what every other layer of streamkit reads and writes.

The answer users hold (:mod:`.response`, :mod:`.blocks` with a data block's
:mod:`.data_sources` and :mod:`.pcm` audio, tool calls' :mod:`.tool_arguments`,
:mod:`.usage`, :mod:`.finish`, :mod:`.timing`), the events that build it (:mod:`.events`,
:mod:`.merge`, :mod:`.accumulate`, :mod:`.replay`), the vendors that send it
(:mod:`.vendors`), what it costs (:mod:`.cost`), its structured output
(:mod:`.structured`) and pydantic schema (:mod:`.schema`), and the ground they
stand on: errors, limits, made-up ids, provenance of unknown fields, append-only
buffers, incremental JSON (:mod:`.partial_json` reads it, :mod:`.json_path`
writes it from path updates), ``<think>`` tags.

This package imports nothing else of streamkit (an import-linter contract).
"""
