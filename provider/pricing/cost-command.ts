import { costReport, markdownOf } from "./preview-figures";

// `gpucloud-cost` (the npm command) and `pulumi-resource-gpucloud cost` (the plugin, for
// programs in Python, Go or YAML without Node.js): reads `pulumi preview --json` on stdin and
// prints the plan's figures as JSON, or with `--markdown` the line CI posts on a pull request.

const usage =
  "usage: pulumi preview --json | gpucloud-cost [--markdown]  (or: pulumi-resource-gpucloud cost)";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

/** Runs the command with its arguments (after the program's name); resolves to the exit status. */
export async function costCommand(args: readonly string[]): Promise<number> {
  const unknown = args.filter((arg) => arg !== "--markdown");
  if (unknown.length > 0 || process.stdin.isTTY) {
    process.stderr.write(`gpucloud-cost: ${usage}\n`);
    return 2;
  }
  try {
    const report = costReport(await readStdin());
    process.stdout.write(
      args.includes("--markdown")
        ? `${markdownOf(report)}\n`
        : `${JSON.stringify(report, null, 2)}\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(
      `gpucloud-cost: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}
