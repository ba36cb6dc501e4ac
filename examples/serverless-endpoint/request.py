"""Sends one request to the stack's serverless endpoint, as the service documents the call.

Reads the stack's outputs on stdin, so that the key is in no command line:
    pulumi stack output --json --show-secrets | python3 request.py
"""

import json
import sys
import time
import urllib.request


def post(url, body, key=None):
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def call_endpoint(route_url, endpoint_name, api_key, worker_route, payload, cost=100):
    # 1. Ask the endpoint for a worker. While none is ready it answers a `status`, not a `url`.
    for _ in range(30):
        answer = post(route_url, {"endpoint": endpoint_name, "cost": cost}, api_key)
        if "url" in answer:
            break
        time.sleep(2)
    else:
        raise RuntimeError(f"no worker became ready: {answer.get('status')}")
    # 2. Send the request to that worker, with the route's answer as its auth_data.
    return post(answer["url"] + worker_route, {"auth_data": answer, "payload": payload})


outputs = json.load(sys.stdin)
result = call_endpoint(
    outputs["routeUrl"],
    outputs["endpointName"],
    outputs["apiKey"],
    "/generate",
    {"inputs": "What is the answer to the universe?", "parameters": {"max_new_tokens": 32}},
)
print(json.dumps(result, indent=2))
