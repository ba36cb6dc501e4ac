import { OrderedLog } from "../../provider/run/ordered-log";
import { EngineLines } from "../../provider/run/progress";

// The plugin's lines for the engine's display go one at a time: the row's last status is the
// last one made ("is running (attempt 1)" after the status round's "running", never before).

/** A log whose lines the test's engine holds until the test answers them (`pending`). */
function heldByTheEngine() {
  const sent: string[] = [];
  const pending: (() => void)[] = [];
  const lines = new OrderedLog<string>((line, done) => {
    sent.push(line);
    pending.push(done);
  });
  return { lines, sent, pending };
}

describe("the plugin's display lines", () => {
  it("are sent in order, each once the engine answered the one before", async () => {
    const { lines, sent, pending } = heldByTheEngine();
    lines.log("instance 7: running");
    lines.log("instance 7 is running (attempt 1)");
    await Promise.resolve();
    // The second waits for the engine's answer to the first.
    expect(sent).toEqual(["instance 7: running"]);
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["instance 7: running", "instance 7 is running (attempt 1)"]);
    pending.shift()?.();
    await lines.flushed();
  });

  it("skip a row's status that a newer status of the row replaced before its turn", async () => {
    const { lines, sent, pending } = heldByTheEngine();
    lines.log("a: booting", "a");
    await Promise.resolve();
    expect(sent).toEqual(["a: booting"]);
    lines.log("a: 10 s", "a");
    lines.log("b: 10 s", "b");
    lines.log("a is outbid");
    lines.log("a: 20 s", "a");
    expect(lines.allAnswered).toBe(false);
    for (let tick = 0; tick < 20 && !lines.allAnswered; tick++) {
      await new Promise((resolve) => setImmediate(resolve));
      pending.shift()?.();
    }
    expect(lines.allAnswered).toBe(true);
    // The first was on its way when the row's next came; "a: 10 s" was replaced waiting.
    expect(sent).toEqual(["a: booting", "b: 10 s", "a is outbid", "a: 20 s"]);
    await lines.flushed();
  });

  it("go on after a line that could not be sent", async () => {
    const sent: string[] = [];
    const lines = new OrderedLog<string>((line, done) => {
      if (line === "bad") throw new Error("channel closed");
      sent.push(line);
      done();
      if (line === "answered, then failed") throw new Error("channel closed");
    });
    lines.log("bad");
    lines.log("answered, then failed");
    lines.log("next");
    await lines.flushed();
    expect(sent).toEqual(["answered, then failed", "next"]);
    // Each line counted out once: the log is idle, not owed a line it never made.
    expect(lines.allAnswered).toBe(true);
    lines.log("later");
    expect(lines.allAnswered).toBe(false);
    await lines.flushed();
    expect(lines.allAnswered).toBe(true);
  });
});

// The dynamic door's lines go one at a time, in order, and a method answers once they were
// answered, so that none arrives after the engine ended the step.
describe("the dynamic door's lines", () => {
  it("go in order, and are waited for until answered, no longer than the bound", async () => {
    const sent: string[] = [];
    const pending: (() => void)[] = [];
    const lines = new EngineLines(undefined, (line) => {
      sent.push(line.message);
      return new Promise<void>((resolve) => pending.push(resolve));
    });
    lines.line("instance 7: running", true);
    lines.line("instance 7 is outbid");
    let done = false;
    const waited = lines.answered().then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["instance 7: running"]);
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["instance 7: running", "instance 7 is outbid"]);
    expect(done).toBe(false);
    pending.shift()?.();
    await waited;
    expect(done).toBe(true);

    // A line the engine never answers: the wait ends at its bound all the same.
    lines.line("never answered");
    await expect(lines.answered(50)).resolves.toBeUndefined();
  });
});
