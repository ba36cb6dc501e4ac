import { dynamicProvider } from "../../provider/provider-runtime";
import type { ResourceImplementation } from "../../provider/shared/resource-implementation";

// Pulumi's dynamic provider host prints `${error}: ${error.stack}` for a failed check, diff,
// update or delete, and the engine shows it twice: the door leaves our errors' stacks out.
function failingWith(error: Error): ResourceImplementation<object, object> {
  const fail = () => Promise.reject(error);
  return { check: fail, diff: fail, create: fail, read: fail, update: fail, delete: fail };
}

describe("the dynamic door's failures", () => {
  it("print the message on one line, without a stack trace", async () => {
    const provider = dynamicProvider(
      failingWith(new Error("gpucloud:apiKey is not set")),
      "failing",
    );
    const failed = await provider.delete?.("1", {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    const error = failed as Error;
    expect(`${String(error)}: ${error.stack ?? ""}`).toBe("Error: gpucloud:apiKey is not set: ");
  });

  it("keep a programming error's stack", async () => {
    const provider = dynamicProvider(failingWith(new TypeError("x is undefined")), "failing");
    const failed = (await provider.diff?.("1", {}, {}).catch((error: unknown) => error)) as Error;
    expect(failed.stack).toMatch(/^TypeError: x is undefined\n\s+at /);
  });
});
