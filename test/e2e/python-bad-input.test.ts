import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { InstanceOfferQuery } from "../../provider/client";
import { resourceModules } from "../../provider/registry";
import { useEmulator } from "../support/use-emulator";
import { emulatorConfig, expectNoLeak } from "../support/programs";
import { withStack } from "../support/pulumi-stack";

// Bad input from Python fails at preview with the lines a TypeScript program's gets, the names
// in Python's spelling (disk_gb for diskGb): the Python SDK checks nothing itself (no
// required-argument TypeError, no type check; only a misspelled keyword argument of a class is
// Python's own TypeError), so the provider's check, the same for every language, says what is
// wrong, naming the field as the program wrote it, every failing field of a resource at once.
//
// The TypeScript lines come from the TypeScript classes' own check (and getOffers' client
// call), called directly as test/contract/bad-input.test.ts does: a TypeScript preview prints a
// check failure as its reason, one line per field, and a function's rejection as its message
// (test/e2e/bad-input.test.ts proves both through the engine), so a TypeScript preview per case
// would only print the same lines again. The Python previews are what this file adds: the
// Python host, the SDK and the plugin, through the engine.

interface Case {
  readonly what: string;
  /** The Python program's body (pulumi_gpucloud imported as gpucloud). */
  readonly python: string;
  /**
   * The same input to TypeScript's dynamic resources: a class's arguments, as `new
   * gpucloud[resource](name, args)` gives them to its check, or getOffers' query.
   */
  readonly typescript:
    | { readonly resource: string; readonly name: string; readonly args: object }
    | { readonly getOffers: object };
  /**
   * The lines both must print, each from the field's name to the line's end (TypeScript's
   * names): every failing field of one resource at once. A line given with `python` is spelled
   * out as Python's must read it.
   */
  readonly says: readonly (RegExp | { readonly says: RegExp; readonly python: string })[];
  /**
   * A function's failure is an exception raised where the program calls it: Python reports it
   * with a traceback that ends at the program's line. A resource's is the engine's one line.
   */
  readonly raises?: true;
}

// The engine stops a preview at the first resource whose check fails, but prints every failure
// of that resource: a case is one resource with as many bad fields as it can hold.
const cases: readonly Case[] = [
  {
    what: "a wrong type and a missing required argument",
    python: `gpucloud.Secret("s", key=123)`,
    typescript: { resource: "Secret", name: "s", args: { key: 123 } },
    says: [/key: expected a string, received 123.*$/m, /value: required: .*$/m],
  },
  {
    what: "a number given as a string",
    python: `gpucloud.Volume("data", ask_id=21001, size_gb="40")`,
    typescript: { resource: "Volume", name: "data", args: { askId: 21001, sizeGb: "40" } },
    says: [/sizeGb: expected a number, received a string holding a number.*$/m],
  },
  {
    what:
      "an instance's missing required argument, a disk below the minimum, a lifetime that is " +
      "no duration, and every failing field of a nested input, a misspelled one among them",
    python: `gpucloud.Instance("gpu", ask_id=31001, disk_gb=-5, max_lifetime="forever", readiness={"http": {"port": 0, "path": "health"}, "initial_delay_seconds": -1, "interval_secs": 5})`,
    typescript: {
      resource: "Instance",
      name: "gpu",
      args: {
        askId: 31001,
        diskGb: -5,
        maxLifetime: "forever",
        readiness: { http: { port: 0, path: "health" }, initialDelaySeconds: -1, intervalSecs: 5 },
      },
    },
    says: [
      /image: .*$/m,
      {
        says: /diskGb: must be at least 8 \(GB\); got -5$/m,
        python: "disk_gb: must be at least 8 (GB); got -5",
      },
      /maxLifetime: must be a whole number followed by s, m, h or d.*$/m,
      /readiness\.http\.port: must be 1-65535; got 0.*$/m,
      /readiness\.http\.path: must start with \/, e\.g\. \/health.*$/m,
      /readiness\.initialDelaySeconds: must be 0 or more; got -1.*$/m,
      /readiness\.intervalSecs: not a field of readiness; did you mean intervalSeconds\?$/m,
    ],
  },
  {
    what: "an unknown query field",
    python: `gpucloud.Instance("gpu", offer_query={"gpu_ram": {"gte": 24}}, image="pytorch/pytorch", disk_gb=20)`,
    typescript: {
      resource: "Instance",
      name: "gpu",
      args: { offerQuery: { gpuRam: { gte: 24 } }, image: "pytorch/pytorch", diskGb: 20 },
    },
    says: [
      {
        says: /offerQuery: gpuRam: not a field of instance offer queries; did you mean gpuRamGb\? the fields are .*$/m,
        // Cut at its end: Python's names are longer.
        python:
          "offer_query: gpu_ram: not a field of instance offer queries; did you mean gpu_ram_gb? " +
          "the fields are gpu_name, num_gpus, gpu_ram_gb,",
      },
    ],
  },
  {
    what: "an unknown query field in a function",
    python: `gpucloud.get_offers(query={"gpuRam": {"gte": 24}})`,
    typescript: { getOffers: { gpuRam: { gte: 24 } } },
    says: [
      /gpuRam: not a field of instance offer queries; did you mean gpuRamGb\? the fields are .*$/m,
    ],
    raises: true,
  },
];

/** A TypeScript program's failure line as a Python program's reads: diskGb is disk_gb. */
function pythonSpelling(line: string | undefined): string | undefined {
  return line?.replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (name) =>
    name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase(),
  );
}

/** Each resource's descriptor, by type, from the registry. */
const descriptors = new Map(resourceModules.map(({ descriptor }) => [descriptor.type, descriptor]));

/** Runs a preview that must fail; returns what it printed. */
async function failedPreview(preview: (onOutput: (text: string) => void) => Promise<unknown>) {
  const printed: string[] = [];
  const passed = await preview((text) => printed.push(text)).then(
    () => true,
    () => false,
  );
  return { passed, output: printed.join("") };
}

describe("bad input from Python (real Pulumi CLI)", () => {
  const providers = useEmulator({ per: "file", bootPolls: 0 });
  const { emulator } = providers;

  /**
   * What a TypeScript program's preview prints of the case: its class's check failures, one
   * line each (the class's arguments filled as the engine's resource gives them), or the
   * message getOffers rejects with. Undefined when the input passed.
   */
  async function typeScriptSays({ what, typescript }: Case): Promise<string | undefined> {
    if ("getOffers" in typescript) {
      return providers.client.searchOffers(typescript.getOffers as InstanceOfferQuery).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    }
    const descriptor = descriptors.get(typescript.resource);
    if (descriptor === undefined) throw new Error(`${what}: no resource ${typescript.resource}`);
    const news = descriptor.fill(typescript.args as Record<string, unknown>, {
      project: "python-bad-input",
      stack: "test",
      name: typescript.name,
      stackToken: "tokenOfThisStack123456",
    });
    const checked = await descriptor.implementation.check(providers.run, {}, news);
    const failures = checked.failures ?? [];
    return failures.length === 0 ? undefined : failures.map(({ reason }) => reason).join("\n");
  }

  it("fails at preview with the TypeScript classes' one-line messages in Python's names, sending no write", async () => {
    const fromTypeScript = new Map<string, string>();
    for (const testCase of cases) {
      const says = await typeScriptSays(testCase);
      expect({ what: testCase.what, failed: says !== undefined }).toEqual({
        what: testCase.what,
        failed: true,
      });
      fromTypeScript.set(testCase.what, says ?? "");
    }
    await withStack(
      {
        language: "python",
        program: { main: "", project: "python-bad-input" },
        config: emulatorConfig(emulator),
      },
      async ({ stack, workDir }) => {
        for (const { what, python, typescript, says, raises } of cases) {
          await writeFile(
            path.join(workDir, "__main__.py"),
            `import pulumi_gpucloud as gpucloud\n\n${python}\n`,
          );
          const { passed, output } = await failedPreview((onOutput) => stack.preview({ onOutput }));
          expect({ what, passed }).toEqual({ what, passed: false });
          for (const said of says) {
            const line = said instanceof RegExp ? said : said.says;
            const fromTs = line.exec(fromTypeScript.get(what) ?? "")?.[0];
            // A resource's failure names the fields in Python's spelling; a function's error is
            // the program's own call, as it wrote it.
            // (A case may spell out a line that is cut at its end: Python's names are longer.)
            const expected =
              raises === true
                ? fromTs
                : fromTs === undefined
                  ? undefined
                  : said instanceof RegExp
                    ? pythonSpelling(fromTs)
                    : said.python;
            const got = expected !== undefined && output.includes(expected) ? expected : output;
            // The TypeScript class said the line (else there is nothing to compare with).
            expect({ what, typescript, line, printed: expected !== undefined }).toEqual({
              what,
              typescript,
              line,
              printed: true,
            });
            expect({ what, line: got }).toEqual({ what, line: expected });
          }
          // No Python traceback for a resource: the failure is the provider's line, not an
          // exception; a function's names the program's own line.
          expect({ what, traceback: /Traceback|TypeError/.test(output) }).toEqual({
            what,
            traceback: raises === true,
          });
          if (raises) expect(output).toMatch(/__main__\.py", line 3, in <module>/);
          expectNoLeak([output], [emulator.apiKey]);
        }
      },
    );
    expect(await emulator.writes()).toEqual([]);
  });
});
