#!/usr/bin/env python3
"""A mock OpenAI-compatible model for measuring `wayfarer bench-agents` (docs/agents.md).

    python3 scripts/mock_model.py --policy garbage --port 8765 &
    OPENAI_API_KEY=mock OPENAI_BASE_URL=http://127.0.0.1:8765 \
        wayfarer bench-agents --brain llm --model mock-garbage --json garbage.json

Policies (each answers `POST /chat/completions` through the one tool, `act`):

- garbage: text with no tool call, every time (a broken model: must score as `idle`);
- idle: `idle` for 5 ticks, every time (a model that does nothing);
- naive: the first productive action the state's `Now:` line offers, on its first id (a valid
  but naive model: it scores what it earns).

Usage is reported (900 prompt tokens, 512 of them cached, 12 completion tokens), so the report's
token columns are exercised. Standard library only.
"""

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Actions the naive policy prefers, in order, when the state offers them with ids.
PRODUCTIVE = [
    "makeItem",
    "cookFood",
    "smeltOre",
    "smithBar",
    "chopTree",
    "catchFish",
    "mineRock",
    "attackEntity",
    "pickupItem",
    "runecraft",
    "talkToNpc",
    "respondDialogue",
]
# The parameter each preferred action takes its id in.
ID_PARAM = {"makeItem": "recipeId", "respondDialogue": "index"}


def offers(now):
    """{action: [ids]} of a `Now:` line (`name[a,b]` or `name`)."""
    out = {}
    for part in now.split(" "):
        if not part:
            continue
        name, _, ids = part.partition("[")
        out[name] = [i for i in ids.rstrip("]").split(",") if i and not i.endswith("…")]
    return out


def naive(state):
    now = next((l[5:] for l in state.splitlines() if l.startswith("Now: ")), "")
    offered = offers(now)
    for name in PRODUCTIVE:
        ids = offered.get(name)
        if not ids:
            continue
        key = ID_PARAM.get(name, "targetId")
        value = ids[0]
        if key in ("slot", "index"):
            try:
                value = int(value)
            except ValueError:
                continue
        return {"action": name, "params": {key: value}}
    return {"action": "idle", "params": {"ticks": 5}}


class Handler(BaseHTTPRequestHandler):
    policy = "garbage"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        messages = request.get("messages", [])
        state = messages[1]["content"] if len(messages) > 1 else ""
        usage = {"prompt_tokens": 900, "completion_tokens": 12, "prompt_tokens_details": {"cached_tokens": 512}}
        if self.policy == "garbage":
            body = {"choices": [{"message": {"content": "I would rather talk about the weather."}}], "usage": usage}
        else:
            act = {"action": "idle", "params": {"ticks": 5}} if self.policy == "idle" else naive(state)
            call = {"id": "c1", "type": "function", "function": {"name": "act", "arguments": json.dumps(act)}}
            body = {"choices": [{"message": {"tool_calls": [call]}}], "usage": usage}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", choices=["garbage", "idle", "naive"], default="garbage")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    Handler.policy = args.policy
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
