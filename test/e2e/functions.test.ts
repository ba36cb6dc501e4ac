import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, expectNoLeak, outsideClient, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

describe("functions under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("getCurrentUser gives the account, never a key", async () => {
    await emulator.setUser({ ssh_key: "ssh-ed25519 AAAAC3Nza test@example", credit: 42.5 });
    await withStack(
      {
        program: program(`exports.user = gpucloud.getCurrentUser();`),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        const up = await stack.up({ onOutput: (text) => output.push(text) });
        expect(up.outputs["user"]?.value).toEqual({
          id: 1,
          email: "dev@example.com",
          credit: 42.5,
          balance: 0,
          keyId: 1,
          hasSshKey: true,
        });
        expect(up.outputs["user"]?.secret).toBe(false);
        expectNoLeak(output, [emulator.apiKey, "AAAAC3Nza"]);
      },
    );
  });

  it("cancelRsyncCopy resolves for a running copy and rejects with the service's message", async () => {
    const client = outsideClient(emulator);
    const src = await client.instances.create(31001, { image: "a", disk: 10 });
    const dst = await client.instances.create(31001, { image: "b", disk: 10 });
    // Two polls take the emulator's instances to running (bootPolls defaults to 2).
    for (let poll = 0; poll < 2; poll++) await client.instances.list();
    await client.commands.startRemoteCopy({
      srcId: String(src),
      dstId: String(dst),
      srcPath: "/a",
      dstPath: "/b",
    });
    await withStack(
      {
        program: program(`
exports.cancelled = gpucloud.cancelRsyncCopy(${dst}).then(() => "cancelled");
exports.invalid = gpucloud.cancelRsyncCopy("999").then(() => "resolved", (error) => error.message);
`),
        config: emulatorConfig(emulator),
      },
      async ({ stack }) => {
        const up = await stack.up();
        expect(up.outputs["cancelled"]?.value).toBe("cancelled");
        expect(up.outputs["invalid"]?.value).toBe("Invalid dst_id.");
      },
    );
    await client.instances.destroy(src);
    await client.instances.destroy(dst);
  });
});
