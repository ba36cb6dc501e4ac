import { useEmulator } from "../support/use-emulator";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";

const count = 100;

describe("a refresh of many secrets", () => {
  const { emulator } = useEmulator({ per: "file" });

  it(`reads ${count} secrets with a handful of list requests, not one each`, async () => {
    await withStack(
      {
        program: program(`
for (let n = 0; n < ${count}; n++) {
  new gpucloud.Secret("s" + n, { key: "KEY_" + n, value: "value-" + n });
}`),
        config: emulatorConfig(emulator),
        teardown: "discard",
      },
      async ({ stack }) => {
        await stack.up();
        expect(Object.keys(await emulator.secrets())).toHaveLength(count);
        await emulator.clearRequests();
        const refresh = await stack.refresh();
        expect(refresh.summary.resourceChanges).toEqual({ same: count + 1 });
        const lists = (await emulator.requests()).filter(
          (entry) => entry.method === "GET" && entry.path.startsWith("/api/v0/secrets"),
        );
        process.stdout.write(
          `[secrets-at-scale] refresh of ${count} secrets: ${lists.length} list requests\n`,
        );
        expect(lists.length).toBeLessThanOrEqual(5);
      },
    );
  });
});
