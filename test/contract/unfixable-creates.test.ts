import { implementation as instanceProvider } from "../../provider/resources/instance";
import { instanceInputsSchema } from "../../provider/resources/instance/inputs";
import { implementation as volumeProvider } from "../../provider/resources/volume";
import { useEmulator } from "../support/use-emulator";

// Creates that no retry can fix stop at once, leading with the reason; limits the offer shows
// are refused at check. The providers' methods are called directly, as the provider process does.
describe("creates that no retry can fix, and limits at check", () => {
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;
  beforeEach(async () => {
    await emulator.clearRequests();
  });

  const inputs = (fields: Record<string, unknown>) =>
    instanceInputsSchema.parse({
      image: "img",
      diskGb: 10,
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      ...fields,
    });
  const rents = async () =>
    (await emulator.requests()).filter((entry) => entry.path.startsWith("/api/v0/asks/"));

  it("an ask that does not exist is asked for once, and the error leads with the 404", async () => {
    await expect(
      instanceProvider.create(providers.run, inputs({ askId: 99, maxAttempts: 3 })),
    ).rejects.toThrow(
      /^gpu: PUT \/api\/v0\/asks\/99\/ failed with HTTP 404 \(no_such_ask: .*\); no instance was created and retrying cannot help/,
    );
    expect(await rents()).toHaveLength(1);
  });

  it("a missing ask in askIds moves on to the next ask, once", async () => {
    const created = await instanceProvider.create(
      providers.run,
      inputs({ askIds: [99, 31001], maxAttempts: 3 }),
    );
    const outs = created.outs;
    if (!outs) throw new Error("create returned no outputs");
    expect(outs.attempts.map((attempt) => attempt.askId)).toEqual([99, 31001]);
    expect((await rents()).map((entry) => entry.path)).toEqual([
      "/api/v0/asks/99/",
      "/api/v0/asks/31001/",
    ]);
    await instanceProvider.delete?.(providers.run, created.id, outs);
  });

  it("a disk larger than the ask offers is refused at create at once, and at check", async () => {
    await expect(
      instanceProvider.create(providers.run, inputs({ askId: 31001, diskGb: 201, maxAttempts: 3 })),
    ).rejects.toThrow(/^gpu: PUT \/api\/v0\/asks\/31001\/ failed with HTTP 400 \(invalid_args: /);
    expect(await rents()).toHaveLength(1);
    expect((await emulator.state()).instances).toEqual([]);

    const checked = await instanceProvider.check?.(
      providers.run,
      {} as never,
      inputs({ askId: 31001, diskGb: 1e9 }),
    );
    expect(checked?.failures).toMatchObject([
      {
        property: "",
        reason:
          "diskGb: 1000000000 GB is more than ask 31001 offers (200 GB disk_space); ask for at " +
          "most that much, or choose an ask with more disk",
      },
    ]);
  });

  it("a volume larger than its ask offers is refused at check", async () => {
    const checked = await volumeProvider.check?.(providers.run, {} as never, {
      askId: 21001,
      sizeGb: 101,
    });
    expect(checked?.failures).toMatchObject([
      { property: "", reason: "sizeGb: 101 GB is more than ask 21001 offers (100 GB disk_space)" },
    ]);
    expect(await emulator.writes()).toEqual([]);
  });
});
