import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { errorOf } from "./helpers";

describe("secrets", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ maxSecrets: 3 });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const list = async () => (await emulator.call("GET", "/api/v0/secrets/")).body;

  it("creates, lists masked, updates and deletes", async () => {
    const { call, control } = emulator;
    expect(await list()).toEqual({ success: true, secrets: {} });

    const created = await call("POST", "/api/v0/secrets/", { key: "hf_token", value: "abc.DEF-1" });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, msg: expect.any(String) as unknown });
    await call("POST", "/api/v0/secrets/", { key: "EMPTY", value: "" });
    await call("POST", "/api/v0/secrets/", { key: "LONG", value: "x".repeat(2048) });

    // Stored upper-case; the mask never depends on the value; empty values show as null.
    expect(await list()).toEqual({
      success: true,
      secrets: { HF_TOKEN: "********", EMPTY: null, LONG: "********" },
    });

    const updated = await call("PUT", "/api/v0/secrets/", { key: "Hf_Token", value: "" });
    expect(updated.body).toMatchObject({ success: true });
    expect(await list()).toMatchObject({ secrets: { HF_TOKEN: null } });
    await call("PUT", "/api/v0/secrets/", { key: "hf_token", value: "new.value" });

    const state = await control("GET", "/_emulator/state");
    expect(state.body).toMatchObject({
      secrets: expect.arrayContaining([{ key: "HF_TOKEN", value: "new.value" }]) as unknown,
    });

    const deleted = await call("DELETE", "/api/v0/secrets/", { key: "hf_token" });
    expect(deleted.body).toEqual({ success: true, msg: "Deleted environment variable HF_TOKEN." });
    expect(await list()).toEqual({ success: true, secrets: { EMPTY: null, LONG: "********" } });
  });

  it("never returns a value outside the control state", async () => {
    const { call } = emulator;
    const value = "very-secret-value.123";
    const replies = [
      await call("POST", "/api/v0/secrets/", { key: "S", value }),
      await call("POST", "/api/v0/secrets/", { key: "s", value }),
      await call("PUT", "/api/v0/secrets/", { key: "S", value }),
      await call("GET", "/api/v0/secrets/"),
      await call("DELETE", "/api/v0/secrets/", { key: "S" }),
    ];
    for (const reply of replies) expect(reply.text).not.toContain(value);
  });

  it.each([
    [{ value: "v" }, "missing_input"],
    [{ key: "", value: "v" }, "missing_input"],
    [{ key: "K" }, "missing_input"],
    [{ key: "K", value: 5 }, "missing_input"],
    [undefined, "missing_input"],
    [{ key: "K".repeat(129), value: "v" }, "input_too_long"],
    [{ key: "K", value: "v".repeat(2049) }, "input_too_long"],
    [{ key: "1ABC", value: "v" }, "invalid_characters"],
    [{ key: "A-B", value: "v" }, "invalid_characters"],
    [{ key: "K", value: "has space" }, "invalid_characters"],
    [{ key: "K", value: "a=b" }, "invalid_characters"],
  ])("rejects create %j with 400 %s", async (body, error) => {
    expect(errorOf(await emulator.call("POST", "/api/v0/secrets/", body))).toEqual({
      status: 400,
      error,
    });
  });

  it("rejects an existing key case-insensitively and enforces the maximum", async () => {
    const { call } = emulator;
    await call("POST", "/api/v0/secrets/", { key: "ONE", value: "1" });
    expect(errorOf(await call("POST", "/api/v0/secrets/", { key: "one", value: "2" }))).toEqual({
      status: 400,
      error: "existing_key",
    });
    await call("POST", "/api/v0/secrets/", { key: "TWO", value: "2" });
    await call("POST", "/api/v0/secrets/", { key: "THREE", value: "3" });
    expect(errorOf(await call("POST", "/api/v0/secrets/", { key: "FOUR", value: "4" }))).toEqual({
      status: 400,
      error: "max_secrets",
    });
  });

  it.each([
    [{ key: "NOPE", value: "v" }, "nonexistent_key"],
    [{ key: "", value: "v" }, "empty_input"],
    [{ value: "v" }, "missing_input"],
    [{ key: "EXISTS" }, "missing_input"],
    [{ key: "K".repeat(129), value: "v" }, "input_too_long"],
    [{ key: "EXISTS", value: "v".repeat(2049) }, "input_too_long"],
    [{ key: "EXISTS", value: "no spaces" }, "invalid_characters"],
    [{ key: "BAD KEY", value: "v" }, "invalid_characters"],
  ])("rejects update %j with 400 %s", async (body, error) => {
    await emulator.call("POST", "/api/v0/secrets/", { key: "EXISTS", value: "v" });
    expect(errorOf(await emulator.call("PUT", "/api/v0/secrets/", body))).toEqual({
      status: 400,
      error,
    });
  });

  it("answers deleting an unknown key with 400 nonexistent_key, as the description documents", async () => {
    expect(errorOf(await emulator.call("DELETE", "/api/v0/secrets/", { key: "NOPE" }))).toEqual({
      status: 400,
      error: "nonexistent_key",
    });
  });
});
