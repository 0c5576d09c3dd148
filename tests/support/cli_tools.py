"""Python functions the chat CLI tests give the model with
``--tool support.cli_tools:NAME`` (named as the recorded models called them)."""


def get_weather(location: str) -> str:
    """The current weather in a city."""
    return f"Sunny, 21 °C in {location}"


def GetWeatherArgs(city: str, country: str, units: str = "c") -> str:
    """The weather in a city."""
    return f"Rain in {city}, {country} ({units})"


def get_stock_price(ticker: str, exchange: str) -> str:
    """A tool that fails: its error goes back to the model as an error result."""
    raise RuntimeError(f"{exchange} is closed")
