import { withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  expectNoLeak,
  outsideClient,
  program,
} from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const secretProgram = (key: string, value: string) =>
  program(`
const token = new gpucloud.Secret("token", { key: ${JSON.stringify(key)}, value: ${JSON.stringify(value)} });
exports.key = token.key;
`);

describe("Secret under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("creates, refreshes unchanged, updates, restores outside changes and destroys", async () => {
    const first = "first-value.1";
    const second = "second_value-2";
    await withStack(
      { program: secretProgram("api_token", first), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output }) => {
        const up = await stack.up({ onOutput: (text) => output.push(text) });
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        expect(up.outputs["key"]?.value).toBe("API_TOKEN");
        expect(await emulator.secrets()).toEqual({ API_TOKEN: first });

        const refresh = await stack.refresh({ onOutput: (text) => output.push(text) });
        expect(refresh.summary.resourceChanges).toEqual({ same: 2 });
        const again = await stack.up({ onOutput: (text) => output.push(text) });
        expect(again.summary.resourceChanges).toEqual({ same: 2 });

        // A new value updates in place.
        await setProgram(secretProgram("api_token", second));
        const update = await stack.up({ onOutput: (text) => output.push(text) });
        expect(update.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: second });

        // A change of case alone is the same key: nothing to do.
        await setProgram(secretProgram("Api_Token", second));
        const sameKey = await stack.up({ onOutput: (text) => output.push(text) });
        expect(sameKey.summary.resourceChanges).toEqual({ same: 2 });

        // Emptied outside Pulumi: refresh sees the null mask, up restores the value.
        await outsideClient(emulator).secrets.update("API_TOKEN", "");
        await stack.refresh({ onOutput: (text) => output.push(text) });
        const restore = await stack.up({ onOutput: (text) => output.push(text) });
        expect(restore.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: second });

        // Deleted outside Pulumi: refresh drops it from state, up creates it again.
        await outsideClient(emulator).secrets.delete("API_TOKEN");
        const gone = await stack.refresh({ onOutput: (text) => output.push(text) });
        expect(gone.summary.resourceChanges).toEqual({ same: 1, delete: 1 });
        const recreate = await stack.up({ onOutput: (text) => output.push(text) });
        expect(recreate.summary.resourceChanges).toEqual({ same: 1, create: 1 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: second });

        // A new key replaces.
        await setProgram(secretProgram("other_token", second));
        const replace = await stack.up({ onOutput: (text) => output.push(text) });
        expect(replace.summary.resourceChanges).toEqual({ same: 1, replace: 1 });
        expect(await emulator.secrets()).toEqual({ OTHER_TOKEN: second });

        // Neither the value nor the API key is in state in plaintext, nor in any output. With
        // secrets shown, our resources (their serialized provider included) still hold no key:
        // only the engine's own default-provider entry keeps the stack config, encrypted.
        const encrypted = await exportState(false);
        const decrypted = await exportState(true);
        expect(decrypted).toContain(second);
        expectNoLeak([encrypted, ...output], [first, second, emulator.apiKey]);
        const ours = dynamicResources(decrypted);
        expect(ours).toHaveLength(1);
        expectNoLeak(
          ours.map((resource) => JSON.stringify(resource)),
          [emulator.apiKey],
        );

        const destroy = await stack.destroy({ onOutput: (text) => output.push(text) });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
        expect(await emulator.secrets()).toEqual({});
      },
    );
  });

  it("takes over its own secret when the create's reply is lost, sending the create once", async () => {
    await emulator.setFaults({ drops: { next: 1, afterHandling: true, methods: ["POST"] } });
    await withStack(
      { program: secretProgram("api_token", "v-1"), config: emulatorConfig(emulator) },
      async ({ stack }) => {
        const up = await stack.up();
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: "v-1" });
        const posts = (await emulator.requests()).filter((entry) => entry.method === "POST");
        expect(posts).toEqual([expect.objectContaining({ status: 0 })]);
      },
    );
  });

  it("refuses a key that already exists in the account, sending no create", async () => {
    await outsideClient(emulator).secrets.create("API_TOKEN", "theirs");
    await emulator.clearRequests();
    await withStack(
      { program: secretProgram("api_token", "ours"), config: emulatorConfig(emulator) },
      async ({ stack }) => {
        await expect(stack.up()).rejects.toThrow(/secret API_TOKEN already exists in the account/);
        expect(await emulator.secrets()).toEqual({ API_TOKEN: "theirs" });
        expect(await emulator.writes()).toEqual([]);
      },
    );
  });
});
