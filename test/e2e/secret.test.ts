import { withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  expectNoLeak,
  outsideClient,
  program,
} from "../support/programs";
import { useEmulator } from "../support/use-emulator";

interface HookFields {
  url: string;
  eventTypes: string[];
  name?: string;
  secretRotation?: string;
}

/** A Secret and a Webhook: two resources whose values are Pulumi secrets, in one stack. */
const secretProgram = (secret: { key: string; value: string }, hook: HookFields) =>
  program(`
const token = new gpucloud.Secret("token", ${JSON.stringify(secret)});
exports.key = token.key;
const hook = new gpucloud.Webhook("alerts", ${JSON.stringify(hook)});
exports.webhookId = hook.webhookId;
exports.webhookSecret = hook.webhookSecret;
`);

// One stack for what the engine adds to the account's Secret and Webhook (they share its path:
// create, refresh, updates in place, outside changes restored, a replacement, secrets never
// printed). What their providers' methods do on their own (a lost create reply, a key the
// account already has, a name cleared and then steady, the diff rules) is
// test/contract/providers.test.ts and test/unit/diff.test.ts.
describe("Secret and Webhook under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("create, refresh unchanged, update in place, restore outside changes, replace, rotate, never print, destroy", async () => {
    const first = "first-value.1";
    const second = "second_value-2";
    const declared: HookFields = {
      url: "https://hooks.example.com/gpu",
      eventTypes: ["client:low_credit"],
      name: "alerts",
    };
    await withStack(
      {
        program: secretProgram({ key: "api_token", value: first }, declared),
        config: emulatorConfig(emulator),
      },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        expect(up.outputs["key"]?.value).toBe("API_TOKEN");
        expect(await emulator.secrets()).toEqual({ API_TOKEN: first });
        expect(up.outputs["webhookSecret"]?.secret).toBe(true);
        const [created] = (await emulator.state()).webhooks;
        expect(created).toMatchObject({ url: declared.url, eventTypes: declared.eventTypes });

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        // A new value updates the secret in place; a change of its key's case alone is the
        // same key (no replacement). Every Webhook field changes in place, keeping the id.
        const changed = { ...declared, eventTypes: ["client:low_credit", "client:outbid"] };
        await setProgram(secretProgram({ key: "Api_Token", value: second }, changed));
        const update = await stack.up({ onOutput });
        expect(update.summary.resourceChanges).toEqual({ same: 1, update: 2 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: second });
        expect((await emulator.state()).webhooks).toEqual([
          expect.objectContaining({ id: created?.id, eventTypes: changed.eventTypes }),
        ]);

        // Changed outside Pulumi (the secret emptied, the hook's URL moved): refresh records
        // both, up restores the declared value and URL.
        await outsideClient(emulator).secrets.update("API_TOKEN", "");
        await outsideClient(emulator).webhooks.update(created?.id ?? 0, {
          webhook_url: "https://elsewhere.example.com/",
        });
        const drift = await stack.refresh({ onOutput });
        expect(drift.summary.resourceChanges).toEqual({ same: 1, update: 2 });
        const restore = await stack.up({ onOutput });
        expect(restore.summary.resourceChanges).toEqual({ same: 1, update: 2 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: second });
        expect((await emulator.state()).webhooks[0]?.url).toBe(declared.url);

        // Deleted outside Pulumi: refresh drops both from state, up creates them again.
        await outsideClient(emulator).secrets.delete("API_TOKEN");
        await outsideClient(emulator).webhooks.delete(created?.id ?? 0);
        const gone = await stack.refresh({ onOutput });
        expect(gone.summary.resourceChanges).toEqual({ same: 1, delete: 2 });
        const recreate = await stack.up({ onOutput });
        expect(recreate.summary.resourceChanges).toEqual({ same: 1, create: 2 });
        expect(await emulator.secrets()).toEqual({ API_TOKEN: second });
        expect((await emulator.state()).webhooks).toHaveLength(1);
        const full = JSON.parse(await emulator.stateText()) as { webhooks: { secret: string }[] };
        const signingSecret = full.webhooks[0]?.secret ?? "";
        expect(signingSecret).not.toBe("");

        // A new key replaces the secret. A new secretRotation rotates the signing secret in
        // place (the new one stays secret), and a removed name is cleared on the service too.
        const { name: _name, ...unnamed } = { ...changed, secretRotation: "2026-11" };
        await setProgram(secretProgram({ key: "other_token", value: second }, unnamed));
        const rotation = await stack.up({ onOutput });
        expect(rotation.summary.resourceChanges).toEqual({ same: 1, update: 1, replace: 1 });
        expect(await emulator.secrets()).toEqual({ OTHER_TOKEN: second });
        expect(rotation.outputs["webhookSecret"]?.secret).toBe(true);
        const rotatedSecret = (await emulator.state()).webhooks[0]?.secret ?? "";
        expect(rotatedSecret).not.toBe(signingSecret);
        expect(rotation.outputs["webhookSecret"]?.value).toBe(rotatedSecret);
        expect((await emulator.state()).webhooks[0]?.name).toBeNull();
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        // Neither the values, the signing secrets nor the API key are in state in plaintext,
        // nor in any output. With secrets shown, our resources (their serialized provider
        // included) still hold no API key: only the engine's own default-provider entry keeps
        // the stack config, encrypted.
        const encrypted = await exportState(false);
        const decrypted = await exportState(true);
        expect(decrypted).toContain(second);
        expect(decrypted).toContain(rotatedSecret);
        expectNoLeak(
          [encrypted, ...output],
          [first, second, signingSecret, rotatedSecret, emulator.apiKey],
        );
        const ours = dynamicResources(decrypted);
        expect(ours).toHaveLength(2);
        expectNoLeak(
          ours.map((resource) => JSON.stringify(resource)),
          [emulator.apiKey],
        );

        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
        expect(await emulator.secrets()).toEqual({});
        expect((await emulator.state()).webhooks).toEqual([]);
      },
    );
  });
});
