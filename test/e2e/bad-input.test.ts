import type { ConfigMap, Stack } from "@pulumi/pulumi/automation";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { badResourceInputs, type BadInputCase } from "../support/bad-resource-inputs";
import { emulatorConfig, expectNoLeak, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";
import { nothingListening } from "../support/addresses";

/**
 * Bad input as a new user writes it, through the engine: the configuration problems a new user
 * meets first or whose value must never be printed, the functions, and the resource groups where
 * the engine's printing matters (every configuration problem on its own:
 * test/contract/configuration.test.ts). Each must fail `pulumi preview`
 * with one line naming the field and saying what is allowed, never print a secret or a huge
 * value, and send no write. The engine stops a preview at the first resource whose check fails,
 * but reports every failure of that resource: a group is one resource (or one program) with
 * several bad fields, so each preview checks several cases.
 */

interface Group {
  readonly what: string;
  /** The program's body (JavaScript, with gpucloud and pulumi in scope). */
  readonly program: string;
  /** Stack config; the emulator's address and key unless given. */
  readonly config?: ConfigMap;
  readonly cases: readonly BadInputCase[];
  /** Values that must not appear in the output (the configured key is always searched). */
  readonly secrets?: readonly string[];
}

const secret = (key: unknown, value: unknown) =>
  `new gpucloud.Secret("s", { key: ${JSON.stringify(key)}, value: ${JSON.stringify(value)} });`;

// Through the engine, the groups where printing could leak or flood: a secret's value, a private
// key, and a resource failing on every field at once (a 200 KB onstart, an env secret); and the
// typos of a JavaScript program, which no type checker stops. Each group is checked against the
// resources' own check in test/contract/bad-input.test.ts.
const throughTheEngine = new Set([
  "Secret: wrong types and characters",
  "SshKey: a private key",
  "Instance: every field wrong at once",
  // A JavaScript program's typo reaches check through the class, and fails the preview.
  "Instance: misspelled inputs",
]);

function resourceGroups(): Group[] {
  return [
    ...badResourceInputs
      .filter((group) => throughTheEngine.has(group.what))
      .map((group) => ({
        what: group.what,
        program: `new gpucloud.${group.type}("r", ${JSON.stringify(group.args)});`,
        cases: group.cases,
        ...(group.secrets === undefined ? {} : { secrets: group.secrets }),
      })),
    {
      what: "functions: cancelRsyncCopy with a bad dstId",
      program: `
gpucloud.cancelRsyncCopy({ id: 5 });
gpucloud.cancelRsyncCopy(-1);
gpucloud.cancelRsyncCopy("abc");
`,
      cases: [
        {
          field: "dstId",
          says: /cancelRsyncCopy: dstId: an instance id: a positive whole number, or its digits as a string \(received an object\)/,
        },
        { field: "dstId", says: /cancelRsyncCopy: dstId: must be more than 0; got -1/ },
        {
          field: "dstId",
          says: /cancelRsyncCopy: dstId: the digits of an instance id \(received a string of 3 characters\)/,
        },
      ],
    },
  ];
}

// Each configuration problem is one check failure, printed as any other: they are checked on
// their own in test/contract/configuration.test.ts. Through the engine: the first a new user
// meets (no key), a wrong key (which must never be printed), and the functions' own path.
function configGroups(emulator: TestEmulator, nowhere: string): Group[] {
  const key = (value: string) => ({ value, secret: true });
  const url = (value: string) => ({ value });
  const wrongKey = "wrong-key-0123456789abcdef";
  const anyResource = secret("TOKEN", "v");
  return [
    {
      what: "config: no API key",
      program: anyResource,
      config: { "gpucloud:baseUrl": url(emulator.url) },
      cases: [{ field: "gpucloud:apiKey", says: /gpucloud:apiKey is not set: run `pulumi config/ }],
    },
    {
      what: "config: a wrong key",
      program: anyResource,
      config: { "gpucloud:apiKey": key(wrongKey), "gpucloud:baseUrl": url(emulator.url) },
      cases: [
        {
          field: "gpucloud:apiKey",
          says: /gpucloud:apiKey was refused by http:\/\/127.0.0.1:\d+ \(HTTP 401\)/,
        },
      ],
      secrets: [wrongKey],
    },
    {
      what: "functions: getCurrentUser with a wrong key",
      program: `exports.user = gpucloud.getCurrentUser();`,
      config: { "gpucloud:apiKey": key(wrongKey), "gpucloud:baseUrl": url(emulator.url) },
      cases: [{ field: "gpucloud:apiKey", says: /gpucloud:apiKey was refused by .* \(HTTP 401\)/ }],
      secrets: [wrongKey],
    },
    {
      what: "functions: getCurrentUser where nothing listens",
      program: `exports.user = gpucloud.getCurrentUser();`,
      config: { "gpucloud:apiKey": key(emulator.apiKey), "gpucloud:baseUrl": url(nowhere) },
      cases: [{ field: "gpucloud:baseUrl", says: /gpucloud:baseUrl .*: nothing answers there/ }],
    },
  ];
}

/** Sets exactly the given gpucloud config: keys absent from it are removed. */
async function applyConfig(stack: Stack, config: ConfigMap): Promise<void> {
  for (const name of ["gpucloud:apiKey", "gpucloud:baseUrl", "gpucloud:maxDollarsPerHour"]) {
    if (!(name in config)) await stack.removeConfig(name).catch(() => undefined);
  }
  await stack.setAllConfig(config);
}

describe("bad input fails at preview, in one line, naming the field", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("configuration, the functions, and resources whose printing matters", async () => {
    const nowhere = await nothingListening();
    const groups = [...resourceGroups(), ...configGroups(emulator, nowhere)];
    const cases = groups.reduce((sum, group) => sum + group.cases.length, 0);
    expect(cases).toBeGreaterThanOrEqual(18);
    const problems: string[] = [];
    await withStack(
      // The environment's fallbacks are cleared: only the stack config counts.
      { program: program(""), env: { GPUCLOUD_API_KEY: "", GPUCLOUD_BASE_URL: "" } },
      async ({ stack, setProgram }) => {
        for (const group of groups) {
          await applyConfig(stack, group.config ?? emulatorConfig(emulator));
          await setProgram(program(group.program));
          const printed: string[] = [];
          const passed = await stack.preview({ onOutput: (text) => printed.push(text) }).then(
            () => true,
            () => false,
          );
          const output = printed.join("");
          if (passed) problems.push(`${group.what}: the preview passed`);
          for (const { field, says } of group.cases) {
            if (!says.test(output))
              problems.push(`${group.what}: ${field} not reported as ${says}`);
          }
          // A few KB at most, one readable line per problem.
          if (output.length > 8_192) problems.push(`${group.what}: ${output.length} chars printed`);
          const longest = Math.max(...output.split("\n").map((line) => line.length));
          if (longest > 700) problems.push(`${group.what}: a ${longest}-char line`);
          if (/^\s+at .*:\d+:\d+\)?$/m.test(output)) problems.push(`${group.what}: a stack trace`);
          expectNoLeak([output], [emulator.apiKey, ...(group.secrets ?? [])]);
        }
      },
    );
    expect(problems).toEqual([]);
    expect(await emulator.writes()).toEqual([]);
  });
});
