import { resourceModules } from "../../provider/registry";
import { exampleOf } from "../../provider/shared/reference-examples";
import { accountRecordsOf, leftOnAccount } from "../support/doc-blocks";
import { useEmulator } from "../support/use-emulator";

// What the registry tells the tests of each resource (its descriptor's `tests`: the kind of
// record it makes, how to find one on the account), held against the emulator: each resource
// its reference example makes on its own is created from that example, found on the account
// and among what is left, and gone after its delete. The end-to-end tests that read the
// account after running the documentation (test/e2e/reference-examples.test.ts, readme,
// docs-commands) rely on these answers.

const declared = { project: "proj", stack: "dev", name: "r", stackToken: "tokenOfThisStack123456" };

/** The resources whose example declares nothing else first and rents no instance. */
const standalone = resourceModules
  .map(({ descriptor }) => descriptor)
  .filter(({ tests, rentsInstances, inputs }) => {
    const example = exampleOf(inputs);
    return tests !== undefined && !rentsInstances && example !== undefined && !example.needs;
  });

describe("the registry's account knowledge", () => {
  const h = useEmulator({ per: "test", market: { seed: 1 }, bootPolls: 0 });

  it("names, for every resource, a kind of record the account has", async () => {
    const account = await accountRecordsOf(h.emulator);
    for (const { descriptor } of resourceModules) {
      if (descriptor.tests === undefined) continue;
      expect(() => account(descriptor.tests?.records ?? "")).not.toThrow();
    }
    expect(await leftOnAccount(h.emulator)).toEqual({});
  });

  it.each(standalone.map((descriptor) => [descriptor.type, descriptor] as const))(
    "%s: made from its example, it is on the account and left over until deleted",
    async (_type, descriptor) => {
      const { implementation, tests } = descriptor;
      const example = exampleOf(descriptor.inputs);
      if (tests === undefined || example === undefined) throw new Error("filtered above");
      const checked = await implementation.check(
        h.run,
        {},
        descriptor.fill(example.inputs, declared),
      );
      expect(checked.failures ?? []).toEqual([]);
      const created = await implementation.create(h.run, checked.inputs ?? {});
      const outputs = created.outs ?? {};
      expect(tests.isOnAccount(outputs, await accountRecordsOf(h.emulator))).toBe(true);
      expect(Object.keys(await leftOnAccount(h.emulator))).toEqual([tests.records]);
      await implementation.delete(h.run, created.id, outputs);
      expect(tests.isOnAccount(outputs, await accountRecordsOf(h.emulator))).toBe(false);
      expect(await leftOnAccount(h.emulator)).toEqual({});
    },
  );
});
