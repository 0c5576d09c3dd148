"""Build a response by hand, the way agentscope users do, then round-trip it.

Run: .venv/bin/python examples/accumulate_by_hand.py
"""

from streamkit import ChatResponse, ChatUsage

response = ChatResponse()
response.append_thinking("The user wants the weather; ", signature=None)
response.append_thinking("call the tool.", signature="sig-abc")  # a signature replaces
response.append_text("Let me check.")
response.append_tool_call("call_1", "get_weather", '{"city": ', call_id="call_1")
response.append_tool_call("call_1", "get_weather", '"Paris"}')
response.append_text("Done.")  # a new block: text after a tool call never merges backwards
response.append_chat_response(ChatResponse(usage=ChatUsage(input_tokens=12, output_tokens=30)))

for block in response.content:
    print(block)
print("arguments:", response.tool_calls[0].arguments())
print("round trip equal:", ChatResponse.from_json(response.to_json()) == response)
