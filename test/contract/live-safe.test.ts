import { randomBytes } from "node:crypto";
import { GpuCloudClient } from "../../provider/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

// The cases that are safe against a real account: read-only, or cleaning up after themselves.
// They run against the emulator by default, and against the real service with GPUCLOUD_LIVE=1
// plus GPUCLOUD_API_KEY and GPUCLOUD_BASE_URL (`npm run test:live`), so the emulator and the
// service are held to the same contract.
const live = process.env["GPUCLOUD_LIVE"] === "1";

describe(`the client against ${live ? "the real service" : "the emulator"} (live-safe cases)`, () => {
  let emulator: TestEmulator | undefined;
  let client: GpuCloudClient;
  let apiKey: string;

  beforeAll(async () => {
    if (live) {
      const key = process.env["GPUCLOUD_API_KEY"];
      const baseUrl = process.env["GPUCLOUD_BASE_URL"];
      if (!key || !baseUrl) {
        throw new Error("GPUCLOUD_LIVE=1 needs GPUCLOUD_API_KEY and GPUCLOUD_BASE_URL");
      }
      apiKey = key;
      client = new GpuCloudClient({ apiKey: key, baseUrl });
    } else {
      emulator = await startTestEmulator();
      apiKey = emulator.apiKey;
      client = new GpuCloudClient({ apiKey, baseUrl: emulator.url });
    }
  });
  afterAll(async () => {
    await client.close();
    await emulator?.close();
  });

  it("reads the current user, without the API key the service echoes", async () => {
    const user = await client.users.current();
    expect(user).toEqual({
      id: expect.any(Number) as number,
      email: expect.any(String) as string,
      credit: expect.any(Number) as number,
      balance: user.balance === null ? null : (expect.any(Number) as number),
      keyId: user.keyId === null ? null : (expect.any(Number) as number),
      hasSshKey: expect.any(Boolean) as boolean,
    });
    expect(JSON.stringify(user)).not.toContain(apiKey);
  });

  it("lists secrets only masked", async () => {
    const secrets = await client.secrets.list();
    for (const masked of Object.values(secrets)) expect(masked ?? "*").toMatch(/^\*+$/);
  });

  it("lists webhooks, volumes, instances and offers", async () => {
    expect(Array.isArray(await client.webhooks.list())).toBe(true);
    expect(Array.isArray(await client.volumes.list())).toBe(true);
    expect(Array.isArray(await client.instances.list())).toBe(true);
    const offers = await client.instances.searchOffers({});
    for (const offer of offers) expect(offer.gpu_ram).toBeGreaterThan(0);
    expect(Array.isArray(await client.volumes.searchOffers({}))).toBe(true);
  });

  it("creates, masks, updates and deletes a secret of its own", async () => {
    const key = `PULUMI_GPUCLOUD_CONTRACT_${randomBytes(4).toString("hex").toUpperCase()}`;
    await client.secrets.create(key, "first-value");
    try {
      expect((await client.secrets.list())[key]).toMatch(/^\*+$/);
      await client.secrets.update(key, "");
      expect((await client.secrets.list())[key]).toBeNull();
    } finally {
      await client.secrets.delete(key);
    }
    expect(key in (await client.secrets.list())).toBe(false);
  });

  it("rejects cancelling a copy into an instance that does not exist with the service's words", async () => {
    await expect(client.commands.cancelRsyncCopy("0")).rejects.toThrow(/^Invalid dst_id\.$/);
  });
});
