import { Run } from "../../provider/run/run";
import { notTheApi, nothingListening } from "../support/addresses";
import { useEmulator } from "../support/use-emulator";

// The provider's configuration as every check verifies it (Run.configurationFailures): each bad
// setting is one failure, one line, naming the key and what is allowed, never the key's value.
// How the engine prints such a failure, and a function's, is test/e2e/bad-input.test.ts (a
// missing key, a wrong key, a function where nothing answers).
describe("configuration failures, as check reports them", () => {
  const { emulator } = useEmulator({ per: "file" });

  /** The failures of a run configured with exactly `settings` (the environment not consulted). */
  async function failuresWith(settings: Record<string, string>): Promise<string[]> {
    const run = new Run({
      // "" rather than undefined: unset, without falling back to GPUCLOUD_* in the environment.
      config: { get: (key) => settings[key] ?? "" },
    });
    try {
      return (await run.configurationFailures()).map((failure) => failure.reason);
    } finally {
      await run.close();
    }
  }

  it("each malformed or unusable setting is one line naming it", async () => {
    const notApi = await notTheApi();
    const nowhere = await nothingListening();
    const apiKey = emulator.apiKey;
    try {
      const cases: [string, Record<string, string>, RegExp][] = [
        [
          "no base URL",
          { "gpucloud:apiKey": apiKey },
          /gpucloud:baseUrl is not set: run `pulumi config/,
        ],
        [
          "an ftp:// base URL",
          { "gpucloud:apiKey": apiKey, "gpucloud:baseUrl": "ftp://x.io" },
          /gpucloud:baseUrl must be an http:\/\/ or https:\/\/ URL.*received a ftp: URL/,
        ],
        [
          "a base URL that is no URL",
          { "gpucloud:apiKey": apiKey, "gpucloud:baseUrl": "console" },
          /gpucloud:baseUrl must be an http:\/\/ or https:\/\/ URL.*not a URL/,
        ],
        [
          "a base URL ending in /api/v0",
          { "gpucloud:apiKey": apiKey, "gpucloud:baseUrl": `${emulator.url}/api/v0` },
          /gpucloud:baseUrl must be the service's address without \/api\/v0/,
        ],
        [
          "a negative stack cap",
          {
            "gpucloud:apiKey": apiKey,
            "gpucloud:baseUrl": emulator.url,
            "gpucloud:maxDollarsPerHour": "-5",
          },
          /gpucloud:maxDollarsPerHour must be a positive number of dollars per hour.*received a negative number/,
        ],
        [
          "a base URL that answers, but is not this API",
          { "gpucloud:apiKey": apiKey, "gpucloud:baseUrl": notApi.url },
          /gpucloud:baseUrl http:\/\/127.0.0.1:\d+ answers, but not as the gpucloud API \(HTTP 404.*without \/api\/v0\?/,
        ],
        [
          "a base URL where nothing listens",
          { "gpucloud:apiKey": apiKey, "gpucloud:baseUrl": nowhere },
          new RegExp(`gpucloud:baseUrl ${nowhere}: nothing answers there`),
        ],
      ];
      const problems: string[] = [];
      for (const [what, settings, says] of cases) {
        const reasons = await failuresWith(settings);
        if (reasons.length !== 1 || !says.test(reasons[0] ?? ""))
          problems.push(`${what}: ${JSON.stringify(reasons)} is not one failure matching ${says}`);
        if (reasons.some((reason) => reason.includes("\n") || reason.length > 700))
          problems.push(`${what}: not one readable line`);
        if (reasons.some((reason) => reason.includes(apiKey))) problems.push(`${what}: the key`);
      }
      expect(problems).toEqual([]);
    } finally {
      await notApi.close();
    }
    expect(await emulator.writes()).toEqual([]);
  });

  it("a scoped key without user_read is not a configuration error", async () => {
    const scopedKey = "scoped-key-without-user-read";
    await emulator.addKey(scopedKey, { api: { misc: {} } });
    expect(
      await failuresWith({ "gpucloud:apiKey": scopedKey, "gpucloud:baseUrl": emulator.url }),
    ).toEqual([]);
  });
});
