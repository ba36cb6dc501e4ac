import { request } from "undici";
import { buildEmulator, startEmulator } from "../../emulator";

describe("startEmulator and options", () => {
  it("listens on a free port on 127.0.0.1 and closes", async () => {
    const emulator = await startEmulator({ apiKey: "k-1", port: 0 });
    try {
      expect(emulator.url).toBe(`http://127.0.0.1:${String(emulator.port)}`);
      expect(emulator.port).toBeGreaterThan(0);
      const reply = await request(`${emulator.url}/api/v0/users/current`, {
        headers: { authorization: "Bearer k-1", connection: "close" },
      });
      expect(reply.statusCode).toBe(200);
      await reply.body.dump();
    } finally {
      await emulator.close();
    }
  });

  it("rejects invalid options without echoing the key", () => {
    expect(() => buildEmulator({ apiKey: "" })).toThrow(/Invalid emulator options/);
    try {
      buildEmulator({ apiKey: "secret-key-xyz", bootPolls: -1 });
      throw new Error("expected a rejection");
    } catch (error) {
      expect(String(error)).toMatch(/bootPolls/);
      expect(String(error)).not.toContain("secret-key-xyz");
    }
  });
});
