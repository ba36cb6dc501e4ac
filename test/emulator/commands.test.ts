import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { createInstance, errorOf, pollUntilRunning, showInstance } from "./helpers";

describe("remote copies", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const copy = (src: unknown, dst: unknown) =>
    emulator.call("PUT", "/api/v0/commands/copy_direct/", {
      client_id: "me",
      src_id: src,
      dst_id: dst,
      src_path: "/workspace/",
      dst_path: "/workspace/",
    });
  const cancelCopy = (dstId: unknown) =>
    emulator.call("DELETE", "/api/v0/commands/copy_direct/", { client_id: "me", dst_id: dstId });
  const copiesIn = async () =>
    z
      .object({ copies: z.array(z.looseObject({})) })
      .parse((await emulator.control("GET", "/_emulator/state")).body).copies;
  const running = async () => {
    const id = await createInstance(emulator.call);
    await pollUntilRunning(emulator.call, id);
    return id;
  };
  const cancel = (dstId: unknown) =>
    emulator.call("DELETE", "/api/v0/commands/rsync/", { dst_id: dstId });

  it("starts a copy between running instances and cancels it", async () => {
    const { call, control } = emulator;
    const src = await createInstance(call);
    const dst = await createInstance(call);
    await pollUntilRunning(call, src);
    await pollUntilRunning(call, dst);

    expect((await copy(src, dst)).body).toEqual({
      success: true,
      msg: expect.stringContaining("copy initiated") as unknown,
    });
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

  it("refuses a copy unless both instances exist (404) and run (400)", async () => {
    const { call } = emulator;
    const src = await createInstance(call);
    const dst = await createInstance(call);
    await pollUntilRunning(call, src);
    const notRunning = await copy(src, dst);
    expect(errorOf(notRunning)).toEqual({ status: 400, error: "invalid_args" });
    expect(notRunning.body).toMatchObject({ msg: "Remote instance does not have an open port" });
    const noDst = await copy(src, 999);
    expect(errorOf(noDst)).toEqual({ status: 404, error: "no_such_instance" });
    expect(noDst.body).toMatchObject({ msg: "Invalid dst_id." });
    const noSrc = await copy(999, dst);
    expect(errorOf(noSrc)).toEqual({ status: 404, error: "no_such_instance" });
    expect(noSrc.body).toMatchObject({ msg: "Invalid src_id." });
    expect(await copiesIn()).toEqual([]);
  });

  it("takes the ids the official client sends: C.<id>, plain, and local", async () => {
    const src = await running();
    const dst = await running();

    expect((await copy(`C.${String(src)}`, `C.${String(dst)}`)).body).toMatchObject({
      success: true,
    });
    expect(await copiesIn()).toMatchObject([
      { source: "instance", srcInstanceId: src, dstInstanceId: dst },
    ]);

    // Into the caller's machine: the client runs rsync itself from the source's SSH address.
    const shown = await showInstance(emulator.call, src);
    expect((await copy(`C.${String(src)}`, "local")).body).toEqual({
      success: true,
      src_addr: shown?.public_ipaddr,
      src_port: shown?.ssh_port,
    });

    // From the caller's machine into an instance: the copy runs into dst until cancelled.
    const into = await showInstance(emulator.call, dst);
    expect((await copy("local", String(dst))).body).toEqual({
      success: true,
      dst_addr: into?.public_ipaddr,
      dst_port: into?.ssh_port,
    });
    expect(await copiesIn()).toMatchObject([
      { source: "local", srcInstanceId: null, dstInstanceId: dst },
    ]);
  });

  it("copies a volume into an instance, not into the local machine", async () => {
    const dst = await running();
    await emulator.call("PUT", "/api/v0/volumes/", { id: 21001, size: 10 });
    expect((await copy("V.5001", `C.${String(dst)}`)).body).toMatchObject({ success: true });
    expect(await copiesIn()).toMatchObject([
      { source: "volume", srcVolumeId: 5001, srcInstanceId: null, dstInstanceId: dst },
    ]);
    expect(errorOf(await copy("V.5001", "local"))).toEqual({ status: 400, error: "invalid_args" });
    expect(errorOf(await copy("V.9999", dst))).toEqual({ status: 404, error: "no_such_volume" });
  });

  it.each([
    ["a cloud service source", { src_id: "s3.101" }, "Invalid src_id."],
    ["local at both ends", { src_id: "local", dst_id: "local" }, "Invalid src_id."],
    ["a volume destination", { dst_id: "V.5001" }, "Invalid dst_id."],
    ["a malformed destination", { dst_id: "C.x" }, "Invalid dst_id."],
    ["no source path", { src_path: "" }, "Invalid src_path."],
    ["no destination path", { dst_path: undefined }, "Invalid dst_path."],
  ])("rejects a copy with %s: 400 invalid_args", async (_case, change, msg) => {
    const src = await running();
    const reply = await emulator.call("PUT", "/api/v0/commands/copy_direct/", {
      client_id: "me",
      src_id: String(src),
      dst_id: String(src),
      src_path: "/a/",
      dst_path: "/b/",
      ...change,
    });
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg });
  });

  it("cancels through DELETE commands/copy_direct/ too, with the description's statuses", async () => {
    const src = await running();
    const dst = await running();
    await copy(src, dst);

    const cancelled = await cancelCopy(`C.${String(dst)}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ success: true });
    expect(await copiesIn()).toEqual([]);
    expect((await cancelCopy(String(dst))).body).toEqual({ success: true });

    const unknown = await cancelCopy("999");
    expect(errorOf(unknown)).toEqual({ status: 404, error: "no_such_instance" });
    expect(unknown.body).toMatchObject({ msg: "Invalid dst_id." });
    for (const malformed of ["abc", undefined, "local"]) {
      const reply = await cancelCopy(malformed);
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
      expect(reply.body).toMatchObject({ msg: "Invalid dst_id." });
    }
    const booting = await createInstance(emulator.call);
    const noPort = await cancelCopy(String(booting));
    expect(errorOf(noPort)).toEqual({ status: 400, error: "invalid_args" });
    expect(noPort.body).toMatchObject({ msg: "Remote instance does not have an open port" });
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
