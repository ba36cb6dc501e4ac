import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, program } from "../support/programs";

describe("what each resource adds to the state", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("is a thin provider shim plus the resource's own fields", async () => {
    await withStack(
      {
        program: program(`
new gpucloud.Secret("secret", { key: "TOKEN", value: "abc" });
new gpucloud.Webhook("webhook", { url: "https://hooks.example.com/x", eventTypes: ["client:low_credit"] });
new gpucloud.Volume("volume", { askId: 21001 });
new gpucloud.Instance("instance", { askId: 31001, image: "img", diskGb: 10, pollIntervalSeconds: 0.05 });
`),
        config: emulatorConfig(emulator),
      },
      async ({ stack, exportState }) => {
        await stack.up();
        const resources = dynamicResources(await exportState(false));
        expect(resources).toHaveLength(4);
        for (const resource of resources) {
          const provider = resource.outputs?.["__provider"];
          expect(typeof provider).toBe("string");
          const providerBytes = Buffer.byteLength(String(provider));
          const totalBytes = Buffer.byteLength(JSON.stringify(resource));
          process.stdout.write(
            `[state-size] ${resource.type}: ${totalBytes} bytes in state, of which __provider ${providerBytes} bytes (inputs and outputs each hold a copy)\n`,
          );
          // The shim forwards to the package by name: no implementation, no dependency code.
          expect(String(provider)).toContain("pulumi-gpucloud/provider/resources/");
          expect(String(provider)).not.toMatch(/undici|zod|GpuCloudClient/);
          expect(providerBytes).toBeLessThan(4_000);
        }
      },
    );
  });
});
