import {
  type TestEmulator,
  createInstance,
  pollUntilRunning,
  showInstance,
  startTestEmulator,
} from "./helpers";

describe("remote copies", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const copy = (src: number, dst: number) =>
    emulator.call("PUT", "/api/v0/commands/copy_direct/", {
      client_id: "me",
      src_id: src,
      dst_id: dst,
      src_path: "/workspace/",
      dst_path: "/workspace/",
    });
  const cancel = (dstId: unknown) =>
    emulator.call("DELETE", "/api/v0/commands/rsync/", { dst_id: dstId });

  it("starts a copy between running instances and cancels it", async () => {
    const { call, control } = emulator;
    const src = await createInstance(call);
    const dst = await createInstance(call);
    await pollUntilRunning(call, src);
    await pollUntilRunning(call, dst);

    expect((await copy(src, dst)).body).toEqual({ success: true });
    expect((await control("GET", "/_emulator/state")).body).toMatchObject({
      copies: [{ srcInstanceId: src, dstInstanceId: dst }],
    });
    const cancelled = await cancel(String(dst));
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ success: true });
    expect((await control("GET", "/_emulator/state")).body).toMatchObject({ copies: [] });
    // Nothing left to kill is still a success: the copy is not running either way.
    expect((await cancel(String(dst))).body).toEqual({ success: true });
  });

  it("refuses a copy unless both instances exist and run", async () => {
    const { call } = emulator;
    const src = await createInstance(call);
    const dst = await createInstance(call);
    await pollUntilRunning(call, src);
    expect((await copy(src, dst)).body).toMatchObject({
      success: false,
      msg: expect.any(String) as unknown,
    });
    expect((await copy(src, 999)).body).toMatchObject({ success: false });
    expect((await copy(999, dst)).body).toMatchObject({ success: false });
  });

  it("reports an invalid or unreachable destination with 200 and success false", async () => {
    const { call } = emulator;
    const invalid = { success: false, error: "invalid_args", msg: "Invalid dst_id." };
    for (const dstId of ["999", "abc", undefined]) {
      const reply = await cancel(dstId);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(invalid);
    }
    const booting = await createInstance(call);
    await showInstance(call, booting);
    const reply = await cancel(String(booting));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: false,
      error: "invalid_args",
      msg: "Remote instance does not have an open port",
    });
  });
});
