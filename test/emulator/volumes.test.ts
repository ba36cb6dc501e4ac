import { type TestEmulator, VOLUME_ASK_ID, errorOf, startTestEmulator } from "./helpers";

describe("volumes and volume offers", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("lists the seeded volume asks, whatever the query", async () => {
    const reply = await emulator.call("POST", "/api/v0/volumes/search/", {
      disk_space: { gte: 5 },
    });
    expect(reply.body).toMatchObject({
      offers: [
        {
          id: 21001,
          disk_space: 100,
          storage_cost: 0.1,
          geolocation: expect.any(String) as unknown,
        },
        { id: 21002 },
        { id: 21003 },
      ],
    });
    expect((await emulator.call("POST", "/api/v0/volumes/search")).status).toBe(200);
  });

  it("accepts an ask (reusably), lists and deletes volumes", async () => {
    const { call } = emulator;
    const first = await call("PUT", "/api/v0/volumes/", { id: VOLUME_ASK_ID, size: 15 });
    expect(first.body).toEqual({ success: true, volume_name: "V.5001" });
    const second = await call("PUT", "/api/v0/volumes", { id: VOLUME_ASK_ID, size: 100 });
    expect(second.body).toEqual({ success: true, volume_name: "V.5002" });

    const listed = await call("GET", "/api/v0/volumes/?owner=me&type=all_volume");
    expect(listed.body).toEqual({
      volumes: [
        { id: 5001, name: "V.5001", status: "created", label: null, disk_space: 15, ask_id: 21001 },
        {
          id: 5002,
          name: "V.5002",
          status: "created",
          label: null,
          disk_space: 100,
          ask_id: 21001,
        },
      ],
    });

    expect((await call("DELETE", "/api/v0/volumes/?id=5001")).body).toEqual({ success: true });
    expect(errorOf(await call("DELETE", "/api/v0/volumes/?id=5001"))).toEqual({
      status: 404,
      error: "no_such_volume",
    });
    expect(errorOf(await call("DELETE", "/api/v0/volumes/?id=abc"))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect((await call("GET", "/api/v0/volumes/")).body).toMatchObject({ volumes: [{ id: 5002 }] });
  });

  it.each([
    [{ size: 15 }, "id"],
    [{ id: VOLUME_ASK_ID }, "size"],
    [{ id: "21001", size: 15 }, "id"],
    [{ id: VOLUME_ASK_ID, size: 0 }, "size"],
    [{ id: VOLUME_ASK_ID, size: 1.5 }, "size"],
    [{ id: 99999, size: 15 }, "id"],
    [{ id: VOLUME_ASK_ID, size: 101 }, "size"],
  ])("rejects accepting %j with 400 invalid_args naming %s", async (body, field) => {
    const reply = await emulator.call("PUT", "/api/v0/volumes/", body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });
});
