import { implementation as apiKey } from "../../provider/resources/api-key";
import { implementation as endpoint } from "../../provider/resources/endpoint";
import { implementation as instance } from "../../provider/resources/instance";
import { implementation as networkVolume } from "../../provider/resources/network-volume";
import { implementation as nodeGroup } from "../../provider/resources/node-group";
import { implementation as overlay } from "../../provider/resources/overlay";
import { implementation as secret } from "../../provider/resources/secret";
import { implementation as sshKey } from "../../provider/resources/ssh-key";
import { implementation as template } from "../../provider/resources/template";
import { implementation as volume } from "../../provider/resources/volume";
import { implementation as webhook } from "../../provider/resources/webhook";
import { implementation as workerGroup } from "../../provider/resources/worker-group";
import type { ResourceImplementation } from "../../provider/shared/resource-implementation";
import { badResourceInputs } from "../support/bad-resource-inputs";
import { outsideClient } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Every group of bad resource input against the resource's own check, as the engine calls it at
// preview. A failure carries no `property`: given one, the engine prints that input's value
// beside the reason (test/e2e/bad-input.test.ts shows a few groups through the engine).

type Props = Record<string, unknown>;
const implementations: Record<string, ResourceImplementation<Props, Props>> = {
  ApiKey: apiKey,
  Endpoint: endpoint,
  Instance: instance,
  NetworkVolume: networkVolume,
  NodeGroup: nodeGroup,
  Overlay: overlay,
  Secret: secret,
  SshKey: sshKey,
  Template: template,
  Volume: volume,
  Webhook: webhook,
  WorkerGroup: workerGroup,
};
/** What a resource's class adds to a program's arguments. */
const addedByClass: Record<string, Props> = {
  Instance: { owner: "proj/dev/r", stackToken: "tokenOfThisStack123456" },
  NodeGroup: { owner: "proj/dev/r", stackToken: "tokenOfThisStack123456" },
  Overlay: { resourceName: "r" },
};

describe("bad resource input fails check, in one line per field, naming it", () => {
  const providers = useEmulator({ per: "file", market: false });
  const { emulator } = providers;

  it("has at least 60 cases across the resources", () => {
    const cases = badResourceInputs.reduce((sum, group) => sum + group.cases.length, 0);
    expect(cases).toBeGreaterThanOrEqual(75);
  });

  it.each(badResourceInputs.map((group) => [group.what, group] as const))(
    "%s",
    async (_what, group) => {
      const implementation = implementations[group.type];
      if (implementation === undefined) throw new Error(`no implementation for ${group.type}`);
      if (group.before !== undefined) {
        const outside = outsideClient(emulator);
        await group.before(outside).finally(() => outside.close());
      }
      await emulator.clearRequests();
      const news = { ...group.args, ...addedByClass[group.type] };
      const checked = await implementation.check(providers.run, {}, news);
      const failures = checked.failures ?? [];
      const reasons = failures.map((failure) => failure.reason);
      expect(failures.filter((failure) => failure.property !== "")).toEqual([]);
      expect(
        group.cases
          .filter(({ says }) => !reasons.some((reason) => says.test(reason)))
          .map(({ field, says }) => `${field} not reported as ${String(says)}`),
      ).toEqual([]);
      // One readable line each, a few KB in all, whatever the input held.
      expect(reasons.filter((reason) => reason.includes("\n") || reason.length > 700)).toEqual([]);
      expect(reasons.join("\n").length).toBeLessThan(8_192);
      const printed = JSON.stringify(failures);
      for (const value of group.secrets ?? []) expect(printed).not.toContain(value);
      expect(await emulator.writes()).toEqual([]);
    },
  );
});
