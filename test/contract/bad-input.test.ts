import { resourceModules } from "../../provider/registry";
import { badResourceInputs } from "../support/bad-resource-inputs";
import { outsideClient } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Every group of bad resource input against the resource's own check, as the engine calls it at
// preview. A failure carries no `property`: given one, the engine prints that input's value
// beside the reason (test/e2e/bad-input.test.ts shows a few groups through the engine).

/** Each resource's descriptor, by type, from the registry. */
const descriptors = new Map(resourceModules.map(({ descriptor }) => [descriptor.type, descriptor]));
/** The resource a group declares, as the engine tells the plugin of it. */
const declared = { project: "proj", stack: "dev", name: "r", stackToken: "tokenOfThisStack123456" };

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
      const descriptor = descriptors.get(group.type);
      if (descriptor === undefined) throw new Error(`no resource ${group.type} in the registry`);
      const { implementation } = descriptor;
      if (group.before !== undefined) {
        const outside = outsideClient(emulator);
        await group.before(outside).finally(() => outside.close());
      }
      await emulator.clearRequests();
      // What the resource's class (or the plugin, from the engine) adds to the arguments.
      const news = descriptor.fill(group.args, declared);
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
