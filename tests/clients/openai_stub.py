"""A scripted OpenAI Responses API for the Codex CLI (tests/clients/).

Script (JSON): {"tool": {"name": "exec_command", "arguments": {"cmd": "cat .env"}},
                "final": "done"}
           or  {"tool": {"name": "apply_patch", "input": "*** Begin Patch\\n..."}, ...}
- POST /v1/responses whose input ends with no tool output and whose tools
  offer the scripted tool: answered (SSE) with that one call (turn 1). The
  call's shape follows how the request declares the tool: a "function" tool
  gets a function_call with JSON "arguments" ({"input": ...} for a freeform
  text given as "input"), a "custom" (freeform) tool a custom_tool_call with
  the text as "input";
- a request whose input carries the call's output (function_call_output or
  custom_tool_call_output): answered with the final text (turn 2) - the test
  reads that request from the log to see what the model was shown;
- any other Responses request: a short text. Unknown endpoints: 404, logged.
"""

import itertools
import json
import sys
from urllib.parse import urlsplit

from stub_server import StubHandler, serve

_ids = itertools.count(1)

OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


def offered_tool(body, name):
    for t in body.get("tools") or []:
        if isinstance(t, dict) and t.get("name") == name:
            return t
    return None


def carries_tool_output(body):
    items = body.get("input") or []
    return any(isinstance(i, dict) and i.get("type") in OUTPUT_TYPES for i in items)


class OpenAIStub(StubHandler):
    """OpenAI Responses API stub: one scripted tool call, then a final text."""

    def route(self, body):
        path = urlsplit(self.path).path
        if self.command == "GET" and path == "/v1/models":
            self.send_json(200, {"object": "list", "data": [], "models": []})
            return "models"
        if self.command == "POST" and path == "/v1/responses" and isinstance(body, dict):
            return self.answer_responses(body)
        return self.unknown(body)

    def answer_responses(self, body):
        tool = self.script["tool"]
        declared = offered_tool(body, tool["name"])
        if carries_tool_output(body):
            item, note = self.message(self.script.get("final", "done")), "final"
        elif declared is not None:
            call_id = "call_stub%04d" % next(_ids)
            if declared.get("type") == "custom":
                text = tool.get("input")
                if text is None:
                    text = json.dumps(tool.get("arguments", {}))
                item = {"type": "custom_tool_call", "id": "ctc_" + call_id, "status": "completed",
                        "call_id": call_id, "name": tool["name"], "input": text}
            else:
                args = tool.get("arguments")
                if args is None:
                    args = {"input": tool.get("input", "")}
                item = {"type": "function_call", "id": "fc_" + call_id, "status": "completed",
                        "call_id": call_id, "name": tool["name"], "arguments": json.dumps(args)}
            note = "%s %s" % (item["type"], call_id)
        else:
            item, note = self.message("ok"), "side"
        rid = "resp_stub%04d" % next(_ids)
        response = {"id": rid, "object": "response", "status": "in_progress",
                    "model": body.get("model", "stub"), "output": []}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}
        events = [
            ("response.created", {"type": "response.created", "response": response}),
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed",
                                    "response": dict(response, status="completed",
                                                     output=[item], usage=usage)}),
        ]
        self.send_sse(events)
        return note

    @staticmethod
    def message(text):
        return {"type": "message", "id": "msg_stub%04d" % next(_ids), "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}


if __name__ == "__main__":
    sys.exit(serve(OpenAIStub))
