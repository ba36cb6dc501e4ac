import { InstanceLeftBehindError } from "../../provider/renting/errors";
import { implementation as instanceProvider } from "../../provider/resources/instance";
import { instanceInputsSchema } from "../../provider/resources/instance/inputs";
import { creatingLabelOf, newStackToken } from "../../provider/renting/identity";
import { waitFor } from "./harness";
import { useEmulator } from "../support/use-emulator";

// The engine's Cancel (fired by the native plugin; run/cancellation.ts) while an Instance boots:
// the create destroys the instance it rented, confirms it gone and fails saying so, within the
// cleanup bound; an instance it cannot destroy is recorded (init error), never left unrecorded.
// The providers' methods are called directly, as the provider process does.
describe("an instance create cancelled mid-boot", () => {
  // Boots take a minute: only a cancellation ends these creates early.
  const providers = useEmulator({ per: "file", bootSeconds: 60 });
  const { emulator } = providers;
  beforeEach(async () => {
    await emulator.clearFaults();
    await emulator.clearRequests();
  });
  /** The engine's Cancel, as the native plugin fires it for its run. */
  const cancel = () => {
    providers.run.cancellation.cancel();
  };

  const inputs = (fields: Record<string, unknown> = {}) =>
    instanceInputsSchema.parse({
      image: "img",
      diskGb: 10,
      askId: 31001,
      pollIntervalSeconds: 5,
      owner: "p/s/gpu",
      stackToken: newStackToken(),
      ...fields,
    });
  const instances = async () => (await emulator.state()).instances;
  const rents = async () =>
    (await emulator.requests()).filter((entry) => entry.path.startsWith("/api/v0/asks/"));

  it("destroys the booting instance and fails with the line, within seconds", async () => {
    const created = instanceProvider.create(providers.run, inputs());
    const failed = created.then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitFor("the rent", async () => (await instances()).length === 1, 10_000);
    const [rented] = await instances();
    const cancelledAt = Date.now();
    cancel();
    const error = await failed;
    const tookMs = Date.now() - cancelledAt;
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(InstanceLeftBehindError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^gpu: cancelled: instance ${String(rented?.id)} destroyed; nothing is left running`,
      ),
    );
    expect(await instances()).toEqual([]);
    expect(await rents()).toHaveLength(1);
    // The poll interval is 5 s: the wait stops at once, not at the next read.
    expect(tookMs).toBeLessThan(3_000);
  }, 20_000);

  it("stops a rent that waits for its turn after 429s, sending it no more", async () => {
    // The service refuses every rent: the create waits for the endpoint's pace between tries.
    await emulator.setFaults({ tooManyRequests: { next: 1_000, paths: ["/api/v0/asks/"] } });
    const failed = instanceProvider.create(providers.run, inputs()).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitFor("two refused rents", async () => (await rents()).length >= 2, 10_000);
    const cancelledAt = Date.now();
    cancel();
    const error = await failed;
    expect(Date.now() - cancelledAt).toBeLessThan(3_000);
    expect(error).toBeInstanceOf(Error);
    const sent = (await rents()).length;
    // Nothing more is sent after the cancellation, and no instance exists.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await rents()).length).toBe(sent);
    expect(await instances()).toEqual([]);
  });

  it("rents nothing once cancelled", async () => {
    cancel();
    await expect(instanceProvider.create(providers.run, inputs())).rejects.toThrow(
      /^gpu: cancelled before attempt 1; nothing this create rented is left running/,
    );
    expect(await rents()).toEqual([]);
    expect(await instances()).toEqual([]);
  }, 15_000);

  it("records an instance it cannot destroy (init error), with its being-created label", async () => {
    const token = newStackToken();
    const created = instanceProvider.create(providers.run, inputs({ stackToken: token }));
    const failed = created.then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitFor("the rent", async () => (await instances()).length === 1, 10_000);
    const [rented] = await instances();
    // The boot wait has read the instance once (its next read is 5 s away).
    await waitFor(
      "the first status read",
      async () =>
        (await emulator.requests()).some(
          (entry) => entry.path.includes("select_filters=%7B%22id%22") && entry.status === 200,
        ),
      10_000,
    );
    // The key is refused from now on (401, never retried): neither the destroy nor the
    // hand-over's relabel can be done.
    await emulator.revokeKey(emulator.apiKey);
    try {
      cancel();
      const error = await failed;
      expect(error).toBeInstanceOf(InstanceLeftBehindError);
      const leftBehind = error as InstanceLeftBehindError;
      expect(leftBehind.id).toBe(String(rented?.id));
      expect(leftBehind.message).toMatch(
        /^gpu: cancelled: instance \d+ \(\w+\) could not be confirmed destroyed in time; it is kept in the stack/,
      );
      // Recorded with its being-created label, so that the next up completes the hand-over.
      expect(leftBehind.properties.label).toBe(creatingLabelOf(token));
      expect((await instances()).map((instance) => instance.id)).toEqual([rented?.id]);
    } finally {
      await emulator.addKey(emulator.apiKey);
    }
  }, 30_000);
});
