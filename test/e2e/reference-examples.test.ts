import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { resourceModules } from "../../provider/registry";
import { accountRecordsOf, leftOnAccount } from "../support/doc-blocks";
import type { TestEmulator } from "../support/emulator";
import { useEmulator } from "../support/use-emulator";
import { emulatorConfig, type ExportedResource, stateResources } from "../support/programs";
import { withStack } from "../support/pulumi-stack";
import {
  type PageProgram,
  pagePrograms,
  pythonProgram,
  typescriptProgram,
  yamlProgram,
} from "../support/reference-pages";
import { nativePluginDir } from "../support/yaml-stack";

// The examples of the reference pages (docs/reference, generated from the schema: see
// provider/shared/reference-examples.ts) work as users copy them: the TypeScript and Python blocks of
// every resource's and function's page run against an emulator of the default market, with the
// real Pulumi CLI, all pages at once in one program per language (one `up`, one `destroy`);
// every resource they declare is then on the account, and after destroy nothing is. The YAML
// blocks are previewed the same way, with the native plugin. docs-reference.test.ts type-checks
// the TypeScript, gofmts and vets the Go and parses the Python of the same pages.

/** Whether a resource of each type, by its outputs in the stack's state, is on the account. */
const isOnAccount = new Map(
  resourceModules.flatMap(({ descriptor: { type, tests } }) =>
    tests === undefined ? [] : [[type, tests.isOnAccount] as const],
  ),
);

/** The pages' resources that are not on the account: `Instance.md: Instance Instance-instance`. */
async function missingFromAccount(
  emulator: TestEmulator,
  pages: readonly PageProgram[],
  resources: readonly ExportedResource[],
): Promise<string[]> {
  const account = await accountRecordsOf(emulator);
  return pages.flatMap(({ page, declared }) =>
    declared
      .filter(({ type, name }) => {
        const outputs = resources.find((resource) => resource.urn.endsWith(`::${name}`))?.outputs;
        const check = isOnAccount.get(type);
        if (check === undefined) throw new Error(`no check of a ${type} on the account`);
        return outputs === undefined || !check(outputs, account);
      })
      .map(({ type, name }) => `${page}.md: ${type} ${name}`),
  );
}

/** The resource pages whose program does not declare their resource (what the test looks for). */
const undeclared = (pages: readonly PageProgram[]): string[] =>
  pages
    .filter(
      ({ page, declared }) => /^[A-Z]/.test(page) && !declared.some(({ type }) => type === page),
    )
    .map(({ where }) => where);

/** The examples cancel an rsync copy into an instance they rent: the call reached the service. */
const cancelledCopies = async (emulator: TestEmulator): Promise<number> =>
  (await emulator.requests()).filter(
    (request) =>
      request.method === "DELETE" &&
      request.path === "/api/v0/commands/rsync/" &&
      request.status === 200,
  ).length;

describe("the reference pages' examples, all pages at once (real Pulumi CLI)", () => {
  // The default market (what `gpucloud-emulator` lists with no flags); instances run at their
  // first status read, since how long a boot takes is not what these tests are about.
  const { emulator } = useEmulator({ per: "test", market: { seed: 1 }, bootPolls: 0 });

  it("TypeScript: up creates every resource of every page on the account; destroy leaves nothing", async () => {
    const pages = pagePrograms("ts");
    expect(pages.length).toBeGreaterThanOrEqual(18);
    expect(undeclared(pages)).toEqual([]);
    await withStack(
      { program: typescriptProgram(pages), config: emulatorConfig(emulator) },
      async ({ stack, exportState }) => {
        const up = await stack.up();
        expect(up.summary.result).toBe("succeeded");
        expect(
          await missingFromAccount(emulator, pages, stateResources(await exportState())),
        ).toEqual([]);
        expect(await cancelledCopies(emulator)).toBe(1);
        await stack.destroy();
        expect(await leftOnAccount(emulator)).toEqual({});
      },
    );
  });

  it("Python: up creates every resource of every page on the account; destroy leaves nothing", async () => {
    const pages = pagePrograms("python");
    expect(undeclared(pages)).toEqual([]);
    const dir = await mkdtemp(path.join(tmpdir(), "gpucloud-reference-python-"));
    try {
      const files = {
        ...pythonProgram(pages),
        // The plugin of this checkout's node_modules/.bin.
        "Pulumi.yaml":
          "name: reference-python\nruntime: python\n" +
          `plugins:\n  providers:\n    - name: gpucloud\n      path: ${nativePluginDir}\n`,
      };
      for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
      await withStack(
        { language: "python", program: { dir }, config: emulatorConfig(emulator) },
        async ({ stack, exportState }) => {
          const up = await stack.up();
          expect(up.summary.result).toBe("succeeded");
          expect(
            await missingFromAccount(emulator, pages, stateResources(await exportState())),
          ).toEqual([]);
          expect(await cancelledCopies(emulator)).toBe(1);
          await stack.destroy();
          expect(await leftOnAccount(emulator)).toEqual({});
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("YAML: a preview plans every resource of every page, sending no write", async () => {
    const pages = pagePrograms("yaml");
    expect(undeclared(pages)).toEqual([]);
    const text =
      "name: reference-yaml\nruntime: yaml\n" +
      `plugins:\n  providers:\n    - name: gpucloud\n      path: ${nativePluginDir}\n` +
      yamlProgram(pages);
    await withStack(
      { language: "yaml", program: { text }, config: emulatorConfig(emulator) },
      async ({ stack }) => {
        const preview = await stack.preview();
        const declared = pages.flatMap((page) => page.declared);
        // Each declared resource, and the stack (a default provider is not counted).
        expect(preview.changeSummary).toEqual({ create: declared.length + 1 });
        expect(await emulator.writes()).toEqual([]);
      },
    );
  });
});
