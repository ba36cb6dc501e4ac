import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { cachedVirtualEnv } from "../support/cached-venv";
import { codeBlocksIn, documentationFiles } from "../support/doc-blocks";
import { wheelhouse } from "../support/python-stack";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// The Python the documentation shows type-checks under mypy (its defaults, as a user runs it: the
// docs' helper functions go unannotated) against the committed
// SDK, sdk/python: every ```python block of README.md and docs/guides/, the example and the
// template programs, and the forms of a query a newcomer writes (a condition as a dict inside
// OfferQueryArgs, a class inside a dict). A wrong form fails, so the check is not vacuous.
// mypy and what it needs are pinned in scripts/python/mypy.lock and installed into a virtual
// environment of this test's own, made once per machine for the locks (about 25 s of CPU).

/** The forms the docs and the issue name, each a way a program gives an offer query. */
const forms = `import pulumi_gpucloud as gpucloud
from pulumi_gpucloud import OfferQueryArgs, QueryNumberArgs

by_class = gpucloud.Instance(
    "by-class",
    offer_query=gpucloud.OfferQueryArgs(gpu_ram_gb={"gte": 24}),
    max_dollars_per_hour=1,
    image="pytorch/pytorch",
    disk_gb=40,
    expose_ports=[8080, "53/udp"],
)
by_dict = gpucloud.Instance(
    "by-dict",
    offer_query={"gpu_ram_gb": {"gte": 24}, "gpu_name": "RTX 4090"},
    max_dollars_per_hour=1,
)
by_string = gpucloud.Instance("by-string", offer_query="gpu_name=RTX_4090 num_gpus=1")
volume = gpucloud.Volume(
    "volume",
    volume_offer_query={"disk_space_gb": {"gte": 100}},
    size_gb=50,
    for_instance={
        "offer_query": OfferQueryArgs(gpu_ram_gb=QueryNumberArgs(gte=24)),
        "max_dollars_per_hour": 2,
    },
)
group = gpucloud.NodeGroup(
    "group",
    node_count=2,
    offer_query={"gpu_name": "H100 SXM"},
    max_dollars_per_hour=4,
    disk_gb=100,
)
worker_group = gpucloud.WorkerGroup(
    "workers",
    endpoint_id=1,
    offer_query=OfferQueryArgs(num_gpus={"gte": 1}, verified=True),
)
offers = gpucloud.get_offers(query=gpucloud.OfferQuery(gpu_name="RTX 4090"))
`;

/** Wrong forms, one a line: each must be an error of its own line. */
const wrongForms = [
  'gpucloud.OfferQueryArgs(gpu_ram_gb="24")',
  'gpucloud.OfferQueryArgs(gpu_ram_gb={"gtee": 24})',
  'gpucloud.Instance("a", offer_query=gpucloud.VolumeOfferQueryArgs())',
  'gpucloud.Instance("b", offer_query={"gpuRamGb": {"gte": 24}})',
];

describe("the Python the docs show, under mypy against sdk/python", () => {
  let work!: string;
  let python!: string;
  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), "gpucloud-mypy-"));
    const lock = (name: string) => path.join(repoRoot, "scripts", "python", name);
    // Made once per machine for these locks (test/support/cached-venv.ts), as the other
    // toolchain caches are.
    const venv = await cachedVirtualEnv(
      "mypy",
      [lock("requirements.lock"), lock("mypy.lock")],
      async (dir) => {
        await execFileAsync("python3", ["-m", "venv", dir]);
        const install = (args: string[]) =>
          execFileAsync(path.join(dir, "bin", "python"), [
            ...["-m", "pip", "install", "--quiet", "--disable-pip-version-check"],
            ...args,
          ]);
        await install([
          "--no-index",
          "--find-links",
          await wheelhouse(),
          "-c",
          lock("requirements.lock"),
          "pulumi",
        ]);
        await install(["--only-binary", ":all:", "-r", lock("mypy.lock")]);
      },
    );
    python = path.join(venv, "bin", "python");
  }, 180_000);
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /**
   * mypy on the files, with sdk/python as the package (found on MYPYPATH, its own code
   * not judged: --follow-imports=silent, as an installed package's); its output.
   */
  async function mypy(files: string[]): Promise<{ code: number; output: string }> {
    const args = [
      ...["-m", "mypy", "--follow-imports=silent"],
      ...["--cache-dir", path.join(work, "cache"), ...files],
    ];
    const env = { ...process.env, MYPYPATH: path.join(repoRoot, "sdk", "python") };
    try {
      const { stdout } = await execFileAsync(python, args, { cwd: work, env });
      return { code: 0, output: stdout };
    } catch (error) {
      const { code, stdout } = error as { code?: number; stdout?: string };
      return { code: code ?? -1, output: stdout ?? String(error) };
    }
  }

  it("type-check: the docs' blocks, the example, the template, a query's every form", async () => {
    const programs = new Map<string, string>([["forms.py", forms]]);
    for (const file of documentationFiles()) {
      for (const block of codeBlocksIn(file).filter((block) => block.language === "python")) {
        const module = `${file.replace(/[^A-Za-z0-9]+/g, "_")}_line${block.line}.py`;
        programs.set(module, block.source);
      }
    }
    for (const program of ["examples/python-workspace", "templates/gpucloud-python"]) {
      const main = readFileSync(path.join(repoRoot, program, "__main__.py"), "utf8");
      programs.set(`${program.replace(/[^A-Za-z0-9]+/g, "_")}.py`, main);
    }
    expect(programs.size).toBeGreaterThan(5);
    for (const [name, text] of programs) await writeFile(path.join(work, name), text);
    const { code, output } = await mypy([...programs.keys()]);
    // mypy names each file and line it rejects.
    expect(output).toMatch(/^Success/);
    expect(code).toBe(0);
  }, 120_000);

  it("reject a wrong form: a condition's value, a misspelt operator, the wrong query, camelCase", async () => {
    const program = ["import pulumi_gpucloud as gpucloud", "", ...wrongForms, ""].join("\n");
    await writeFile(path.join(work, "wrong.py"), program);
    const { code, output } = await mypy(["wrong.py"]);
    expect(code).toBe(1);
    const lines = [...output.matchAll(/^wrong\.py:(\d+): error:/gm)].map((match) =>
      Number(match[1]),
    );
    expect([...new Set(lines)]).toEqual(wrongForms.map((_, index) => index + 3));
  }, 120_000);
});
