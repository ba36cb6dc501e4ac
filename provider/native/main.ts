#!/usr/bin/env node
/**
 * `pulumi-resource-gpucloud`: the package's resources for any Pulumi language. The engine
 * starts it with its own address as the last argument and reads the port it serves on from
 * the first line of stdout: that line is the only thing it ever prints there. Anything else a
 * module might print (the SDK's logger without an engine writes to the console) goes to stderr.
 */
const writePort = process.stdout.write.bind(process.stdout);
console.log = console.error;
console.info = console.error;
console.debug = console.error;

// `pulumi-resource-gpucloud cost`: the cost command (provider/pricing/cost-command.ts), for
// users of the standalone plugin without Node.js. The engine never passes it: it starts the
// plugin with its own address (host:port) and flags.
if (process.argv[2] === "cost") {
  const { costCommand } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require("../pricing/cost-command") as typeof import("../pricing/cost-command");
  void costCommand(process.argv.slice(3)).then((status) => {
    process.exitCode = status;
  });
} else {
  startPlugin();
}

function startPlugin(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  Promise.resolve(require("./server") as typeof import("./server"))
    .then(async ({ serve }) => {
      const { port } = await serve(process.argv.slice(2));
      writePort(`${port}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(
        `pulumi-resource-gpucloud: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    });
}
