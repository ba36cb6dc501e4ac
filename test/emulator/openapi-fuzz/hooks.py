"""Schemathesis hooks of test/emulator/openapi-fuzz.test.ts.

The fuzzer checks the emulator's answers against the service's OpenAPI (the project's shared
reference; see openapi-fuzz.test.ts). Where that description is itself wrong, incomplete or
inconsistent with the service's documented behaviour, or the emulator deliberately answers otherwise, the check is
narrowed here: an amendment of the description names the one operation, status or field it
concerns (never a whole check or operation), and fails the run once the description says so
itself (then it is dropped). Each has a line in emulator/README.md ("What the schema fuzzer
accepts") with the same reason.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

# An error as the emulator answers every one: stricter than the description's Error schema,
# whose fields are all optional.
EMULATOR_ERROR = {
    "type": "object",
    "required": ["success", "error", "msg"],
    "properties": {
        "success": {"const": False},
        "error": {"type": "string"},
        "msg": {"type": "string"},
    },
}

# Fields of an instance row that exist only on a running container: the emulator shows null
# until it runs and once it stops (emulator/README.md, "Instance rows").
RUNNING_ONLY_FIELDS = (
    "local_ipaddrs",
    "ssh_host",
    "ssh_idx",
    "ssh_port",
    "machine_dir_ssh_port",
    "public_ipaddr",
    "cpu_util",
)

# Operations whose description documents no answer to invalid input at all.
UNDOCUMENTED_BAD_INPUT = (
    ("PUT", "/api/v0/volumes"),
    ("PUT", "/api/v0/template"),
    ("DELETE", "/api/v0/template"),
    ("PUT", "/api/v0/instances/request_logs/{id}"),
)


def _operations(raw: dict[str, Any]):
    for path, methods in raw["paths"].items():
        for method, operation in methods.items():
            if method in ("get", "put", "post", "delete", "patch"):
                yield method.upper(), path, operation


def _json_schema(raw: dict[str, Any], method: str, path: str, status: str) -> dict[str, Any]:
    response = raw["paths"][path][method.lower()]["responses"][status]
    return response["content"]["application/json"]["schema"]


def _add_status(raw: dict[str, Any], method: str, path: str, status: str) -> None:
    responses = raw["paths"][path][method.lower()]["responses"]
    if status in responses:
        raise AssertionError(f"{method} {path} documents {status} now: drop its amendment")
    responses[status] = {
        "description": "amended (test/emulator/openapi-fuzz/hooks.py)",
        "content": {"application/json": {"schema": EMULATOR_ERROR}},
    }


def _allow_null(properties: dict[str, Any], field: str, where: str) -> None:
    prop = properties[field]
    kind = prop.get("type")
    if kind is None or (isinstance(kind, list) and "null" in kind):
        raise AssertionError(f"{where} {field} is nullable now: drop its amendment")
    prop["type"] = [*(kind if isinstance(kind, list) else [kind]), "null"]


def _add_codes(schema: dict[str, Any], codes: list[str], where: str) -> None:
    enum = schema["properties"]["error"]["enum"]
    if any(code in enum for code in codes):
        raise AssertionError(f"{where} documents {codes} now: drop its amendment")
    enum.extend(codes)


@schemathesis.hook
def before_load_schema(context: Any, raw_schema: dict[str, Any]) -> None:
    raw = raw_schema
    schemas = raw["components"]["schemas"]
    list_row = _json_schema(raw, "GET", "/api/v1/instances", "200")["properties"]["instances"][
        "items"
    ]["properties"]

    # Every operation takes `Authorization: Bearer` (the description's `security` and its "All
    # endpoints require" line); a missing, unknown or revoked key is 401, which 36 operations
    # document with the Error schema and the others leave out.
    for _method, _path, operation in _operations(raw):
        unauthorized = operation["responses"].get("401")
        if unauthorized is None or "content" not in unauthorized:
            operation["responses"]["401"] = {
                "description": "amended: every operation",
                "content": {"application/json": {"schema": EMULATOR_ERROR}},
            }

    # Bad input on operations whose description gives no error for it: 400 `invalid_args`, as
    # the same resources' other operations document (POST template, DELETE volumes).
    for method, path in UNDOCUMENTED_BAD_INPUT:
        _add_status(raw, method, path, "400")

    # Instance rows (show and list answer the same row).
    for field in RUNNING_ONLY_FIELDS:
        _allow_null(schemas["Instance"]["properties"], field, "Instance")
        _allow_null(list_row, field, "GET /api/v1/instances row")
    # The Instance schema's `ports` is a list of integers, the v1 list's Docker's port map; show
    # and list answer the same row: the map, in both.
    if schemas["Instance"]["properties"]["ports"].get("type") != "array":
        raise AssertionError("Instance ports is no longer a list: drop its amendment")
    schemas["Instance"]["properties"]["ports"] = list_row["ports"]
    # `onstart` is nullable in the Instance schema (example null), a string in the v1 list.
    _allow_null(list_row, "onstart", "GET /api/v1/instances row")

    # Show of an id the account does not hold: 200 `{instances: null}`, what the official client
    # reads as "no such instance" (emulator/README.md, the show's row).
    show = _json_schema(raw, "GET", "/api/v0/instances/{id}", "200")["properties"]
    show["instances"] = {"anyOf": [show["instances"], {"type": "null"}]}

    # A key of full access has no scope for `rights` (its scope as JSON text) to be: null.
    keys = _json_schema(raw, "GET", "/api/v0/auth/apikeys", "200")
    _allow_null(keys["properties"]["apikeys"]["items"]["properties"], "rights", "API key")

    # A secret whose value is empty is listed as null: the specification's Secret ("a string of
    # asterisks, or null when the value is empty"), where the OpenAPI has a string.
    secrets = _json_schema(raw, "GET", "/api/v0/secrets", "200")["properties"]["secrets"]
    _allow_null(secrets, "additionalProperties", "GET /api/v0/secrets")

    # A worker group's template and launch arguments are optional ("There is no default value",
    # the worker-group parameters guide): a group made from search parameters alone has none.
    groups = _json_schema(raw, "GET", "/api/v0/workergroups", "200")
    for field in ("template_hash", "template_id", "launch_args"):
        _allow_null(groups["properties"]["results"]["items"]["properties"], field, "worker group")

    # Charges in the tree format: a serverless wrapper's `items` are its children (the worker
    # group's rows under an endpoint, the workers' under a worker group), which the official
    # client draws as such; the OpenAPI types `items` as charge-type breakdowns only ("empty for
    # tree-format wrappers") and names no other place for the children.
    row = _json_schema(raw, "GET", "/api/v0/charges", "200")["properties"]["results"]["items"]
    breakdown = row["properties"]["items"]["items"]
    if "anyOf" in breakdown:
        raise AssertionError("charges items are a union now: drop its amendment")
    schemas["AmendedChargeRow"] = row
    row["properties"]["items"]["items"] = {
        "anyOf": [breakdown, {"$ref": "#/components/schemas/AmendedChargeRow"}]
    }

    # The create of a secret checks its key and value as the update does, whose description
    # lists these two codes; the create's leaves them out.
    _add_codes(
        _json_schema(raw, "POST", "/api/v0/secrets", "400"),
        ["input_too_long", "invalid_characters"],
        "POST /api/v0/secrets 400",
    )


def _body_is_json(case: Any) -> bool:
    body = getattr(case, "body", None)
    if isinstance(body, (bytes, bytearray)):
        try:
            json.loads(body)
        except ValueError:
            return False
    return True


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """False drops a failure: only the emulator's one answer to a body that is not JSON at all,
    400 `invalid_json`, on every operation (the description's error codes are for the JSON
    bodies it describes)."""
    if response is None or response.status_code != 400 or _body_is_json(case):
        return True
    try:
        error = json.loads(response.content).get("error")
    except (ValueError, AttributeError):
        return True
    return error != "invalid_json"
