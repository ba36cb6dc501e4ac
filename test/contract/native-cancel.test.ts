import type * as grpc from "@grpc/grpc-js";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import { creatingLabelOf } from "../../provider/renting/identity";
import {
  configurePlugin,
  plain,
  type Plugin,
  type Props,
  startPlugin,
  struct,
  urnOf,
} from "../support/native-plugin";
import { useEmulator } from "../support/use-emulator";
import { waitFor } from "./harness";

/**
 * The engine's Cancel (the first Ctrl-C) sent to the built plugin over gRPC while an Instance
 * boots: the Create in flight ends promptly, having destroyed the instance it rented, or, when
 * the instance cannot be destroyed, recording it through an initialization failure (the engine
 * then keeps it in the state). Boots take a minute here: only the Cancel ends the creates early.
 */
describe("the native plugin's Cancel", () => {
  const h = useEmulator({ per: "test", bootSeconds: 60 });
  let plugin: Plugin;
  let stackToken: string;

  beforeEach(async () => {
    plugin = await startPlugin();
    stackToken = String((await configurePlugin(plugin, h.emulator))["stackToken"]);
    // The plugin loads @pulumi/pulumi whole: seconds on a busy machine.
  }, 30_000);

  afterEach(async () => {
    await plugin.stop();
    expect(plugin.stdout()).toMatch(/^\d+\n$/);
  });

  async function checkedInstance(name: string): Promise<Props> {
    const request = new provproto.CheckRequest();
    request.setUrn(urnOf("Instance", name));
    request.setType("gpucloud:index:Instance");
    request.setName(name);
    request.setOlds(struct({}));
    request.setNews(struct({ askId: 31001, image: "pytorch", diskGb: 10, pollIntervalSeconds: 5 }));
    const response = await plugin.call<provproto.CheckResponse>("check", request);
    expect(response.getFailuresList()).toEqual([]);
    return plain(response.getInputs());
  }

  /** Starts the Create; resolves with its error (the Create must fail). */
  function createFailing(name: string, inputs: Props): Promise<grpc.ServiceError> {
    const request = new provproto.CreateRequest();
    request.setUrn(urnOf("Instance", name));
    request.setType("gpucloud:index:Instance");
    request.setProperties(struct(inputs));
    return plugin.call<provproto.CreateResponse>("create", request).then(
      () => {
        throw new Error("the create succeeded");
      },
      (error: unknown) => error as grpc.ServiceError,
    );
  }

  const instances = async () => (await h.emulator.state()).instances;

  async function cancelOnceRented(): Promise<{ id: number | undefined; cancelledAt: number }> {
    await waitFor("the rent", async () => (await instances()).length === 1, 15_000);
    const [rented] = await instances();
    const cancelledAt = Date.now();
    await plugin.call("cancel", new emptyproto.Empty());
    return { id: rented?.id, cancelledAt };
  }

  it("ends a create waiting for the boot promptly, the instance destroyed", async () => {
    const failed = createFailing("gpu", await checkedInstance("gpu"));
    const { id, cancelledAt } = await cancelOnceRented();
    const error = await failed;
    const tookMs = Date.now() - cancelledAt;
    expect(error.details).toMatch(
      new RegExp(`^gpu: cancelled: instance ${String(id)} destroyed; nothing is left running`),
    );
    // Not an initialization failure: nothing to record.
    expect(error.metadata.get("grpc-status-details-bin")).toEqual([]);
    expect(await instances()).toEqual([]);
    expect(tookMs).toBeLessThan(3_000);
  }, 30_000);

  it("records an instance it cannot destroy, through an initialization failure", async () => {
    const failed = createFailing("gpu", await checkedInstance("gpu"));
    await waitFor("the rent", async () => (await instances()).length === 1, 15_000);
    // The boot wait has read the instance once (its next read is 5 s away).
    await waitFor(
      "the first status read",
      async () =>
        (await h.emulator.requests()).some(
          (entry) => entry.path.includes("select_filters=%7B%22id%22") && entry.status === 200,
        ),
      15_000,
    );
    // Every request of the plugin's key is refused from now on (401, never retried).
    await h.emulator.revokeKey(h.emulator.apiKey);
    const { id, cancelledAt } = await cancelOnceRented();
    const error = await failed;
    const tookMs = Date.now() - cancelledAt;
    await h.emulator.addKey(h.emulator.apiKey);
    expect(error.details).toMatch(/^gpu: cancelled: instance \d+ \(\w+\) could not be confirmed/);
    const [detailsBin] = error.metadata.get("grpc-status-details-bin");
    expect(detailsBin).toBeInstanceOf(Buffer);
    const status = statusproto.Status.deserializeBinary(detailsBin as Buffer);
    const [packed] = status.getDetailsList();
    const initFailed = packed?.unpack(
      (bytes) => provproto.ErrorResourceInitFailed.deserializeBinary(bytes),
      "pulumirpc.ErrorResourceInitFailed",
    );
    expect(initFailed?.getId()).toBe(String(id));
    expect(plain(initFailed?.getProperties())).toMatchObject({
      instanceId: id,
      label: creatingLabelOf(stackToken),
      owner: "native-test/dev/gpu",
    });
    expect(initFailed?.getReasonsList().join("\n")).toMatch(/cancelled: instance/);
    // On the account, and recorded: not an unrecorded running instance.
    expect((await instances()).map((instance) => instance.id)).toEqual([id]);
    expect(tookMs).toBeLessThan(3_000);
  }, 30_000);
});
