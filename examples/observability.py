"""See what a call did: its timing, its cost, and its OpenTelemetry span and metrics.

A ReplayServer on 127.0.0.1 plays a recorded Anthropic stream (the first byte
after 0.3 s, as a model thinking would); the OpenTelemetry SDK prints the span
and the metrics to the console. Swap the base URL for the real API (with your
key) and your own exporter (OTLP to Jaeger, Grafana, Datadog, Logfire...).
Needs the otel and prices extras, and opentelemetry-sdk.
Run: .venv/bin/python examples/observability.py
"""

from importlib import resources
from pathlib import Path

import anyio
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

import streamkit
from streamkit.observability.summary import summary_line
from streamkit.testing import ReplayServer, load_recording

tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
trace.set_tracer_provider(tracer_provider)  # from now on every Client call has its span
meter_provider = MeterProvider([PeriodicExportingMetricReader(ConsoleMetricExporter())])
metrics.set_meter_provider(meter_provider)


async def main() -> None:
    recording = Path(str(resources.files("streamkit") / "demo_data" / "tool-use.sse"))
    body, content_type = load_recording(recording)
    async with ReplayServer() as server:
        server.default(body, content_type=content_type, chunk_size=64, pauses={0: 0.3})
        async with streamkit.Client("anthropic:claude-sonnet-4-0", api_key="sk-demo",
                                    base_url=server.url) as client:
            async with client.stream([streamkit.UserMessage("Weather in Paris?")]) as events:
                answer = await events.final()
            timing = answer.timing
            assert timing is not None
            print(f"time to first token: {timing.time_to_first_token:.3f} s")
            print(f"longest wait between chunks: {timing.longest_gap:.3f} s")
            print(f"attempts: {timing.attempts}")
            print(f"cost: {answer.cost()}")
            print(f"client total: {client.total_cost}")
            print(summary_line(answer))


anyio.run(main)
meter_provider.shutdown()  # prints the metrics
