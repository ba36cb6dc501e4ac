import { z } from "zod";
import type { GpuCloudClient } from "../../provider/client";
import { useEmulator } from "../support/use-emulator";
import { failureOf, summary } from "./harness";

const ASK = 31001;
const copiesSchema = z.object({
  copies: z.array(
    z.object({
      srcInstanceId: z.number(),
      dstInstanceId: z.number(),
      srcPath: z.string(),
      dstPath: z.string(),
    }),
  ),
});

describe("commands", () => {
  // Instances boot on their first poll, so that a test can get running ones quickly.
  const h = useEmulator({ per: "test", bootPolls: 1 });

  const copies = async () => copiesSchema.parse(JSON.parse(await h.emulator.stateText())).copies;

  async function runningInstance(client: GpuCloudClient): Promise<number> {
    const id = await client.instances.create(ASK, { image: "ubuntu:22.04", disk: 10 });
    expect((await client.instances.show(id))?.actual_status).toBe("running");
    return id;
  }

  it("starts a remote copy between two running instances, and cancels it", async () => {
    const src = await runningInstance(h.client);
    const dst = await runningInstance(h.client);

    await h.client.commands.startRemoteCopy({
      srcId: String(src),
      dstId: String(dst),
      srcPath: "/workspace/data/",
      dstPath: "/workspace/",
    });
    expect(await copies()).toEqual([
      {
        srcInstanceId: src,
        dstInstanceId: dst,
        srcPath: "/workspace/data/",
        dstPath: "/workspace/",
      },
    ]);

    await h.client.commands.cancelRsyncCopy(String(dst));
    expect(await copies()).toEqual([]);
    expect(summary(await h.emulator.writes()).slice(-2)).toEqual([
      "PUT /api/v0/commands/copy_direct/ 200",
      "DELETE /api/v0/commands/rsync/ 200",
    ]);
  });

  it("cancelling where no copy runs, on a running instance, succeeds", async () => {
    const dst = await runningInstance(h.client);

    await expect(h.client.commands.cancelRsyncCopy(String(dst))).resolves.toBeUndefined();
  });

  it("rejects cancelling into an unknown destination with exactly `Invalid dst_id.`", async () => {
    const error = await failureOf(h.client.commands.cancelRsyncCopy("123456"));

    expect(error.message).toBe("Invalid dst_id.");
    expect(error).toMatchObject({
      status: 200,
      code: "invalid_args",
      serviceMessage: "Invalid dst_id.",
      endpoint: "DELETE /api/v0/commands/rsync/",
    });
    // An answer, not a failure: sent once.
    expect(summary(await h.emulator.requests())).toEqual(["DELETE /api/v0/commands/rsync/ 200"]);
  });

  it("rejects cancelling into an instance that is not running with the service's message", async () => {
    await h.emulator.queueBoots([{ status: "exited", afterPolls: 0 }]);
    const dst = await h.client.instances.create(ASK, { image: "ubuntu:22.04", disk: 10 });
    expect((await h.client.instances.show(dst))?.actual_status).toBe("exited");

    const error = await failureOf(h.client.commands.cancelRsyncCopy(String(dst)));

    expect(error.message).toBe("Remote instance does not have an open port");
    expect(error).toMatchObject({
      status: 200,
      code: "invalid_args",
      serviceMessage: "Remote instance does not have an open port",
      endpoint: "DELETE /api/v0/commands/rsync/",
    });
  });

  it("rejects a copy from an unknown source with 404 and the service's message", async () => {
    const dst = await runningInstance(h.client);

    const error = await failureOf(
      h.client.commands.startRemoteCopy({
        srcId: "999",
        dstId: String(dst),
        srcPath: "/a/",
        dstPath: "/b/",
      }),
    );

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_instance",
      serviceMessage: "Invalid src_id.",
      endpoint: "PUT /api/v0/commands/copy_direct/",
      isNotFound: true,
      mayHaveCreated: false,
    });
    expect(await copies()).toEqual([]);
  });

  it("says a remote copy started, and where to connect for a copy to or from local", async () => {
    const src = await runningInstance(h.client);
    const dst = await runningInstance(h.client);
    const paths = { srcPath: "/workspace/", dstPath: "/workspace/" };

    const remote = await h.client.commands.startRemoteCopy({
      srcId: `C.${String(src)}`,
      dstId: `C.${String(dst)}`,
      ...paths,
    });
    expect(remote).toEqual({ success: true, msg: expect.stringContaining("copy") as unknown });

    const shown = await h.client.instances.show(src);
    const download = await h.client.commands.startRemoteCopy({
      srcId: `C.${String(src)}`,
      dstId: "local",
      ...paths,
    });
    expect(download).toEqual({
      success: true,
      src_addr: shown?.public_ipaddr,
      src_port: shown?.ssh_port,
    });

    const upload = await h.client.commands.startRemoteCopy({
      srcId: "local",
      dstId: String(dst),
      ...paths,
    });
    expect(upload).toMatchObject({ success: true, dst_addr: expect.any(String) as unknown });
    expect(upload.dst_port).toEqual(expect.any(Number));
  });
});
