import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// The Go SDK's inputs are typed where Go can type them: a query input takes the query's struct
// (not any pulumi.Input), ports are whole numbers. A tiny module using the committed sdk/go
// (a replace directive, go.sum of examples/go-workspace, nothing fetched) is compiled twice: the
// right forms type-check, and each wrong one is a compile error of its own line.

/** A program whose `pulumi.Run` function holds these lines after a query. */
const program = (lines: readonly string[]) => `package main

import (
	"github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		query := gpucloud.OfferQueryArgs{GpuRamGb: gpucloud.QueryNumberArgs{Gte: pulumi.Float64(24)}}
${lines.map((line) => `\t\t${line}`).join("\n")}
		return nil
	})
}
`;

const right = [
  '_, _ = gpucloud.NewInstance(ctx, "a", &gpucloud.InstanceArgs{OfferQuery: query, ExposePorts: pulumi.IntArray{pulumi.Int(8080)}, DiskGb: pulumi.Float64(40)})',
  '_, _ = gpucloud.NewInstance(ctx, "b", &gpucloud.InstanceArgs{OfferQuery: &gpucloud.OfferQueryArgs{GpuName: pulumi.String("RTX 4090")}})',
  '_, _ = gpucloud.NewNodeGroup(ctx, "c", &gpucloud.NodeGroupArgs{OfferQuery: query, NodeCount: pulumi.Int(2)})',
  '_, _ = gpucloud.NewVolume(ctx, "d", &gpucloud.VolumeArgs{VolumeOfferQuery: gpucloud.VolumeOfferQueryArgs{}, ForInstance: &gpucloud.VolumeForInstanceArgs{OfferQuery: query}})',
  '_, _ = gpucloud.GetOffers(ctx, &gpucloud.GetOffersArgs{Query: &gpucloud.OfferQuery{GpuName: "RTX 4090"}})',
  'var _ = gpucloud.OfferQueryArgs{Order: pulumi.StringArrayArray{pulumi.StringArray{pulumi.String("dollarsPerHour"), pulumi.String("asc")}}}',
];

/** Each wrong form, and what the compiler says of it. */
const wrong: [string, RegExp][] = [
  [
    'var _ = gpucloud.InstanceArgs{OfferQuery: pulumi.String("gpu_name=RTX_4090")}',
    /as gpucloud\.OfferQueryPtrInput value/,
  ],
  [
    "var _ = gpucloud.InstanceArgs{OfferQuery: gpucloud.VolumeOfferQueryArgs{}}",
    /as gpucloud\.OfferQueryPtrInput value/,
  ],
  [
    "var _ = gpucloud.NodeGroupArgs{OfferQuery: pulumi.Map{}}",
    /as gpucloud\.OfferQueryInput value/,
  ],
  [
    "var _ = gpucloud.OfferQueryArgs{Order: pulumi.ArrayArray{pulumi.Array{pulumi.Int(1)}}}",
    /as pulumi\.StringArrayArrayInput value/,
  ],
  [
    'var _ = gpucloud.InstanceArgs{ExposePorts: pulumi.Array{pulumi.String("53/udp")}}',
    /as pulumi\.IntArrayInput value/,
  ],
];

describe("the Go SDK's typed inputs", () => {
  let module!: string;
  beforeAll(async () => {
    module = await mkdtemp(path.join(tmpdir(), "gpucloud-go-typing-"));
    // The Go release and SDK of examples/go-workspace, whose go.sum this module uses and whose
    // graph setup fetched (scripts/ensure-go-tools.sh reads the same go.mod).
    const exampleGoMod = await readFile(
      path.join(repoRoot, "examples", "go-workspace", "go.mod"),
      "utf8",
    );
    const goRelease = /^go (\S+)$/m.exec(exampleGoMod)?.[1];
    const sdkVersion = /^\s+github\.com\/pulumi\/pulumi\/sdk\/v3 (\S+)/m.exec(exampleGoMod)?.[1];
    if (goRelease === undefined || sdkVersion === undefined) {
      throw new Error("examples/go-workspace/go.mod names no go release or pulumi sdk/v3");
    }
    const goMod = [
      "module gotyping",
      "",
      `go ${goRelease}`,
      "",
      "require (",
      "\tgithub.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go v0.1.0",
      `\tgithub.com/pulumi/pulumi/sdk/v3 ${sdkVersion}`,
      ")",
      "",
      `replace github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go => ${path.join(repoRoot, "sdk", "go")}`,
      "",
    ].join("\n");
    await writeFile(path.join(module, "go.mod"), goMod);
    await copyFile(
      path.join(repoRoot, "examples", "go-workspace", "go.sum"),
      path.join(module, "go.sum"),
    );
  });
  afterAll(async () => {
    await rm(module, { recursive: true, force: true });
  });

  /**
   * `go vet` (type-checks, links nothing) or `go build` (names every error, where vet stops at
   * the first) of the module with main.go holding these lines: its errors, or "" when none.
   */
  async function compile(tool: "vet" | "build", lines: readonly string[]): Promise<string> {
    await writeFile(path.join(module, "main.go"), program(lines));
    // The modules come from the cache setup filled (scripts/ensure-go-tools.sh): none is fetched.
    const env = { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off" };
    try {
      const args = tool === "vet" ? ["vet", "."] : ["build", "-o", os.devNull, "."];
      await execFileAsync("go", args, { cwd: module, env });
      return "";
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      return stderr ?? String(error);
    }
  }

  it("take the query's struct, whole-number ports and a pointer to a function's query", async () => {
    expect(await compile("vet", right)).toBe("");
  }, 120_000);

  it("reject a string, another query, a map for a query, a sort key of numbers, a string port", async () => {
    const errors = await compile(
      "build",
      wrong.map(([line]) => line),
    );
    const lines = program(wrong.map(([line]) => line)).split("\n");
    // Each wrong line has its error, or the failure names the line that compiled.
    const missed = wrong
      .filter(([text, message]) => {
        const line = lines.indexOf(`\t\t${text}`) + 1;
        return !new RegExp(`main\\.go:${line}:\\d+: .*${message.source}`).test(errors);
      })
      .map(([text]) => text);
    expect({ missed, errors }).toEqual({ missed: [], errors });
  }, 120_000);
});
