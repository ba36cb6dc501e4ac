import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { encodeOnstart, onstartLimitChars } from "../../provider/shared/onstart";

// A script that prints itself ($0 is the file bash runs) and does some work of its own.
function selfPrintingScript(totalChars: number): string {
  const head = `#!/bin/bash\nset -e\necho "sum: $(( 6 * 7 ))"\nprintf '%s\\n' "quotes ' \\" and \\$HOME stay as written"\n`;
  const tail = `cat "$0"\n`;
  let body = head;
  for (let step = 0; ; step++) {
    const line = `echo "step ${step}: fetch model shard ${step % 17}" > /dev/null # ünïcödé\n`;
    if (body.length + line.length + tail.length > totalChars) break;
    body += line;
  }
  const pad = totalChars - body.length - tail.length;
  return body + (pad > 1 ? `#${"=".repeat(pad - 2)}\n` : "\n".repeat(pad)) + tail;
}

describe("encodeOnstart", () => {
  it("sends a script within the limit as it is", () => {
    const script = "echo hello\n";
    expect(encodeOnstart(script)).toEqual({ ok: true, command: script, compressed: false });
    const atLimit = "#".repeat(onstartLimitChars);
    expect(encodeOnstart(atLimit)).toEqual({ ok: true, command: atLimit, compressed: false });
  });

  it("compresses a 10,000-character script into a command a real shell runs byte for byte", () => {
    const script = selfPrintingScript(10_000);
    expect(script).toHaveLength(10_000);
    const encoded = encodeOnstart(script);
    if (!encoded.ok) throw new Error(`did not fit: ${encoded.encodedChars} characters`);
    expect(encoded.compressed).toBe(true);
    expect(encoded.command.length).toBeLessThanOrEqual(onstartLimitChars);

    const output = execFileSync("bash", ["-c", encoded.command], { encoding: "utf8" });
    expect(output).toBe(`sum: 42\nquotes ' " and $HOME stay as written\n${script}`);
  });

  it("fails with both sizes when even the compressed command is too long", () => {
    const incompressible = randomBytes(12_000).toString("base64");
    const encoded = encodeOnstart(incompressible);
    expect(encoded).toEqual({
      ok: false,
      originalChars: incompressible.length,
      encodedChars: expect.any(Number) as number,
    });
    if (!encoded.ok) expect(encoded.encodedChars).toBeGreaterThan(onstartLimitChars);
  });
});
