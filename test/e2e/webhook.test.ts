import { withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  expectNoLeak,
  outsideClient,
  program,
} from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const webhookProgram = (fields: {
  url: string;
  eventTypes: string[];
  name?: string;
  secretRotation?: string;
}) =>
  program(`
const hook = new gpucloud.Webhook("alerts", ${JSON.stringify(fields)});
exports.webhookId = hook.webhookId;
exports.webhookSecret = hook.webhookSecret;
`);

describe("Webhook under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("creates, refreshes unchanged, updates in place, restores outside changes and destroys", async () => {
    const declared = {
      url: "https://hooks.example.com/gpu",
      eventTypes: ["client:low_credit"],
      name: "alerts",
    };
    await withStack(
      { program: webhookProgram(declared), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        expect(up.outputs["webhookSecret"]?.secret).toBe(true);
        const [created] = (await emulator.state()).webhooks;
        expect(created).toMatchObject({ url: declared.url, eventTypes: declared.eventTypes });

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });

        // Every field changes in place, keeping the id.
        const changed = { ...declared, eventTypes: ["client:low_credit", "client:outbid"] };
        await setProgram(webhookProgram(changed));
        const update = await stack.up({ onOutput });
        expect(update.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect((await emulator.state()).webhooks).toEqual([
          expect.objectContaining({ id: created?.id, eventTypes: changed.eventTypes }),
        ]);

        // Changed outside Pulumi: refresh records the drift, up restores the declared URL.
        await outsideClient(emulator).webhooks.update(created?.id ?? 0, {
          webhook_url: "https://elsewhere.example.com/",
        });
        const drift = await stack.refresh({ onOutput });
        expect(drift.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        await stack.up({ onOutput });
        expect((await emulator.state()).webhooks[0]?.url).toBe(declared.url);

        // Deleted outside Pulumi: refresh drops it, up creates a new one.
        await outsideClient(emulator).webhooks.delete(created?.id ?? 0);
        const gone = await stack.refresh({ onOutput });
        expect(gone.summary.resourceChanges).toEqual({ same: 1, delete: 1 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({
          same: 1,
          create: 1,
        });
        const state = await emulator.state();
        expect(state.webhooks).toHaveLength(1);

        // The signing secret is a Pulumi secret: encrypted in state, never printed.
        const full = JSON.parse(await emulator.stateText()) as {
          webhooks: { secret: string }[];
        };
        const signingSecret = full.webhooks[0]?.secret ?? "";
        expect(signingSecret).not.toBe("");
        const decrypted = dynamicResources(await exportState(true));
        expect(JSON.stringify(decrypted)).toContain(signingSecret);
        expectNoLeak([await exportState(false), ...output], [signingSecret, emulator.apiKey]);

        // A new secretRotation rotates the signing secret in place; the new one stays secret.
        await setProgram(webhookProgram({ ...declared, secretRotation: "2026-11" }));
        const rotation = await stack.up({ onOutput });
        expect(rotation.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect(rotation.outputs["webhookSecret"]?.secret).toBe(true);
        const rotatedSecret = (await emulator.state()).webhooks[0]?.secret ?? "";
        expect(rotatedSecret).not.toBe(signingSecret);
        expect(rotation.outputs["webhookSecret"]?.value).toBe(rotatedSecret);
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });
        expectNoLeak([await exportState(false), ...output], [rotatedSecret]);

        // A removed name is cleared on the service too, then the stack is steady.
        const { name: _name, ...unnamed } = { ...declared, secretRotation: "2026-11" };
        await setProgram(webhookProgram(unnamed));
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({
          same: 1,
          update: 1,
        });
        expect((await emulator.state()).webhooks[0]?.name).toBeNull();
        await stack.refresh({ onOutput });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });

        await stack.destroy({ onOutput });
        expect((await emulator.state()).webhooks).toEqual([]);
      },
    );
  });
});
