import { connect, createServer } from "node:http2";
import type { AddressInfo } from "node:net";
import {
  announcesServerStreams,
  isDynamicProviderHost,
  onEngineCancel,
} from "../../provider/run/engine-cancel";

// The dynamic door hears the engine's Cancel (the first Ctrl-C) as the HTTP/2 stream of that
// call to its process's gRPC server; test/e2e/instance-interrupted.test.ts and
// node-group.test.ts prove it under the real CLI.

/** Sends one request to `path` on a server of this process, and waits for its answer. */
async function call(path: string): Promise<void> {
  const server = createServer();
  server.on("stream", (stream) => {
    stream.respond({ ":status": 200 });
    stream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const request = client.request({ ":path": path, ":method": "POST" });
  request.resume();
  await new Promise((resolve) => request.on("close", resolve));
  client.close();
  await new Promise((resolve) => server.close(resolve));
}

describe("the engine's Cancel in a dynamic provider process", () => {
  it("is heard from Node.js 22.17 and 24.2 on", () => {
    expect(
      ["22.16.0", "22.17.0", "23.11.1", "24.1.0", "24.2.0", "25.0.0", "20.19.0"].map((version) =>
        announcesServerStreams(version),
      ),
    ).toEqual([false, true, false, false, true, true, false]);
    // The toolchain's own Node.js hears it: the end-to-end tests depend on it.
    expect(announcesServerStreams()).toBe(true);
  });

  it("is listened for only in the SDK's dynamic provider host", () => {
    const sdk = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider";
    expect(isDynamicProviderHost(`${sdk}/index.js`)).toBe(true);
    expect(isDynamicProviderHost(sdk)).toBe(true);
    expect(isDynamicProviderHost("/p/node_modules/@pulumi/pulumi/cmd/run/index.js")).toBe(false);
    expect(isDynamicProviderHost(undefined)).toBe(false);
  });

  it("cancels on the Cancel call, and on no other", async () => {
    let cancels = 0;
    expect(onEngineCancel(() => (cancels += 1))).toBe(true);
    await call("/pulumirpc.ResourceProvider/Create");
    await call("/pulumirpc.ResourceProvider/Check");
    expect(cancels).toBe(0);
    await call("/pulumirpc.ResourceProvider/Cancel");
    expect(cancels).toBe(1);
  });
});
