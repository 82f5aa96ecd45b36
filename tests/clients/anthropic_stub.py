"""A scripted Anthropic Messages API for Claude Code (tests/clients/).

Script (JSON): {"tool": {"name": "Bash", "input": {"command": "cat .env", ...}},
                "final": "done"}
- a request whose tools offer the scripted tool and whose last message carries
  no tool_result: answered with that one tool_use (turn 1);
- a request whose last message carries a tool_result: answered with the final
  text (turn 2) - the test reads that request from the log to see what the
  model was shown as the tool's result;
- any other Messages request (Claude Code's side calls without tools, e.g.
  titles): a short text;
- POST /v1/messages/count_tokens: a token estimate.
Streaming (SSE) when the request asks for it, plain JSON otherwise. Unknown
endpoints get a 404 in the API's error shape and are logged as such.
"""

import itertools
import json
import sys
from urllib.parse import urlsplit

from stub_server import StubHandler, serve

_ids = itertools.count(1)


def last_user_content(body):
    msgs = body.get("messages") or []
    if not msgs:
        return []
    content = msgs[-1].get("content")
    return content if isinstance(content, list) else [{"type": "text", "text": content or ""}]


def has_tool_result(body):
    return any(isinstance(b, dict) and b.get("type") == "tool_result"
               for b in last_user_content(body))


def offers_tool(body, name):
    return any(isinstance(t, dict) and t.get("name") == name for t in body.get("tools") or [])


class AnthropicStub(StubHandler):
    """Anthropic Messages API stub: one scripted tool_use, then a final text."""

    def route(self, body):
        path = urlsplit(self.path).path
        if self.command == "POST" and path == "/v1/messages/count_tokens":
            self.send_json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
            return "count_tokens"
        if self.command == "POST" and path == "/v1/messages" and isinstance(body, dict):
            return self.messages(body)
        return self.unknown(body)

    def messages(self, body):
        tool = self.script["tool"]
        if has_tool_result(body):
            blocks, stop, note = [{"type": "text", "text": self.script.get("final", "done")}], \
                "end_turn", "final"
        elif offers_tool(body, tool["name"]):
            tid = "toolu_stub%04d" % next(_ids)
            blocks, stop, note = [{"type": "tool_use", "id": tid, "name": tool["name"],
                                   "input": tool["input"]}], "tool_use", "tool_use " + tid
        else:
            blocks, stop, note = [{"type": "text", "text": "ok"}], "end_turn", "side"
        model = body.get("model", "claude-sonnet-4-5")
        msg = {"id": "msg_stub%04d" % next(_ids), "type": "message", "role": "assistant",
               "model": model, "content": blocks, "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if not body.get("stream"):
            self.send_json(200, msg)
            return note
        start = dict(msg, content=[], stop_reason=None)
        start["usage"] = dict(msg["usage"], output_tokens=1)
        events = [("message_start", {"type": "message_start", "message": start})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text",
                                                                         "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "text_delta",
                                                                 "text": b["text"]}}))
            else:
                events.append(("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"],
                                      "input": {}}}))
                events.append(("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        self.send_sse(events)
        return note + " (stream)"


if __name__ == "__main__":
    sys.exit(serve(AnthropicStub))
