import { spawn } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

// The executor the toolchain's Python language host runs programs with
// (scripts/python/pulumi-language-python-exec, around the release's own, "upstream"). A program
// whose run failed ends at once, though threads of it still wait for answers the engine will
// never give (the CLI would wait 5 s, then kill it); one that succeeds ends as Python ends any
// program, its threads joined. The upstream executor is a stand-in here, doing what the real one
// does at its end: `sys.exit(code)`.

const executor = path.resolve(
  __dirname,
  "..",
  "..",
  "scripts",
  "python",
  "pulumi-language-python-exec",
);

/** A thread that waits forever, as one waiting on the engine's answer does; not a daemon. */
const waitingThread = `import threading
threading.Thread(target=threading.Event().wait, daemon=False).start()
`;

interface Ended {
  code: number | null;
  stderr: string;
}

async function runWith(upstream: string): Promise<Ended> {
  const dir = await mkdtemp(path.join(tmpdir(), "gpucloud-executor-"));
  try {
    await copyFile(executor, path.join(dir, "pulumi-language-python-exec"));
    await writeFile(path.join(dir, "pulumi-language-python-exec.upstream"), upstream);
    const child = spawn("python3", [path.join(dir, "pulumi-language-python-exec")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { code, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the Python executor of the toolchain's language host", () => {
  it("ends a failed run at once, with its exit code, though a thread still waits", async () => {
    const ended = await runWith(`${waitingThread}import sys\nsys.exit(32)\n`);
    expect(ended.code).toBe(32);
  });

  it("ends an interrupted run with 130 and no traceback", async () => {
    const ended = await runWith(`${waitingThread}raise KeyboardInterrupt\n`);
    expect(ended).toEqual({ code: 130, stderr: "" });
  });

  it("prints the message of sys.exit(text) and ends with 1", async () => {
    const ended = await runWith(`${waitingThread}import sys\nsys.exit("no program")\n`);
    expect(ended).toEqual({ code: 1, stderr: "no program\n" });
  });

  it("lets a successful run's threads finish their work before it ends", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "gpucloud-executor-out-"));
    const written = path.join(dir, "written");
    try {
      const upstream = `import sys, threading, time
def work():
    time.sleep(0.3)
    open(${JSON.stringify(written)}, "w").write("done")
threading.Thread(target=work, daemon=False).start()
sys.exit(0)
`;
      expect(await runWith(upstream)).toEqual({ code: 0, stderr: "" });
      expect(await readFile(written, "utf8")).toBe("done");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
