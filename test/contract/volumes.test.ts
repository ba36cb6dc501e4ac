import { volumeIdOf } from "../../provider/client";
import { useEmulator } from "../support/use-emulator";
import { failureOf } from "./harness";

const VOLUME_ASK = 21001; // a seeded ask offering 100 GB

describe("volumes", () => {
  const h = useEmulator({ per: "test" });

  it("accepts a volume ask: the volume is named V.<id> and the id is returned too", async () => {
    const volume = await h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 50);

    expect(volume).toEqual({ volumeName: "V.5001", volumeId: 5001 });
    expect(volumeIdOf(volume.volumeName)).toBe(volume.volumeId);
    expect((await h.emulator.state()).volumes).toEqual([
      expect.objectContaining({ id: 5001, askId: VOLUME_ASK, sizeGb: 50 }),
    ]);
  });

  it("names a volume at create: the name comes back as its label", async () => {
    const before = Date.now() / 1000;
    const named = await h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 20, { name: "datasets" });
    const unnamed = await h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 20);

    const volumes = await h.client.volumes.list();

    expect(volumes).toEqual([
      expect.objectContaining({ id: named.volumeId, label: "datasets", machine_id: 41207 }),
      expect.objectContaining({ id: unnamed.volumeId, label: null }),
    ]);
    expect(volumes[0]?.start_date).toBeGreaterThanOrEqual(before - 1);
  });

  it("lists the account's volumes", async () => {
    const first = await h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 15);
    const second = await h.client.volumes.acceptVolumeAsk(21002, 200);

    const volumes = await h.client.volumes.list();

    expect(volumes).toEqual([
      expect.objectContaining({ id: first.volumeId, status: "created", disk_space: 15 }),
      expect.objectContaining({ id: second.volumeId, status: "created", disk_space: 200 }),
    ]);
    const [listRequest] = await h.emulator.requests().then((all) => all.slice(-1));
    expect(listRequest?.path).toBe("/api/v0/volumes/?owner=me&type=all_volume");
  });

  it("deletes a volume by its id", async () => {
    const keep = await h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 10);
    const drop = await h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 20);

    await h.client.volumes.delete(drop.volumeId);

    expect((await h.client.volumes.list()).map((volume) => volume.id)).toEqual([keep.volumeId]);
  });

  it("rejects deleting an unknown volume with no_such_volume", async () => {
    const error = await failureOf(h.client.volumes.delete(9999));

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_volume",
      endpoint: "DELETE /api/v0/volumes/",
      isNotFound: true,
    });
  });

  it("searches volume offers", async () => {
    const offers = await h.client.volumes.searchOffers();

    expect(offers.map((offer) => offer.id)).toEqual([21001, 21002, 21003]);
    expect(offers[0]).toMatchObject({
      id: 21001,
      disk_space: 100,
      storage_cost: 0.1,
      geolocation: "Oregon, US",
      verification: "verified",
      machine_id: expect.any(Number) as unknown,
    });
  });

  it("searches volume offers with filters, order and limit", async () => {
    const offers = await h.client.volumes.searchOffers({
      disk_space: { gte: 500 },
      geolocation: { in: ["CA", "DE"] },
      order: [["storage_cost", "asc"]],
      limit: 1,
    });

    expect(offers.map((offer) => offer.id)).toEqual([21003]);
  });

  it("rejects a volume search on an unknown field with 400 invalid_args", async () => {
    const error = await failureOf(h.client.volumes.searchOffers({ colour: { eq: "red" } }));

    expect(error).toMatchObject({
      status: 400,
      code: "invalid_args",
      endpoint: "POST /api/v0/volumes/search/",
    });
    expect(error.serviceMessage).toContain("colour");
  });

  it.each([
    ["an unknown ask", 99999, 10, "id: no volume ask 99999"],
    ["a size of zero", VOLUME_ASK, 0, "size"],
    ["a size above the ask's", VOLUME_ASK, 101, "size: ask 21001 offers at most 100 GB"],
  ])("rejects %s with 400 invalid_args", async (_case, askId, size, said) => {
    const error = await failureOf(h.client.volumes.acceptVolumeAsk(askId, size));

    expect(error).toMatchObject({
      status: 400,
      code: "invalid_args",
      endpoint: "PUT /api/v0/volumes/",
      mayHaveCreated: false,
    });
    expect(error.serviceMessage).toContain(said);
    expect(error.message).toContain("PUT /api/v0/volumes/ failed with HTTP 400 (invalid_args: ");
    expect((await h.emulator.state()).volumes).toEqual([]);
  });

  it("refuses a fractional size itself, sending nothing", async () => {
    const error = await failureOf(h.client.volumes.acceptVolumeAsk(VOLUME_ASK, 1.5));

    expect(error).toMatchObject({ status: undefined, endpoint: "PUT /api/v0/volumes/" });
    expect(error.message).toContain("was not sent: its body is invalid: field `size`");
    expect(await h.emulator.requests()).toEqual([]);
  });
});
