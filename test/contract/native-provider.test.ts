import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import { secretOf, secretSignature, signatureKey } from "../../provider/native/secrets";
import {
  type Plugin,
  type Props,
  plain,
  startPlugin,
  struct,
  urnOf,
} from "../support/native-plugin";
import { useEmulator } from "../support/use-emulator";

// The plugin as the engine runs it (test/support/native-plugin.ts), against the emulator.

/** Every string found outside a secret wrapper: where a plaintext secret must never be. */
function exposedStrings(value: unknown, found: string[] = []): string[] {
  if (typeof value === "string") found.push(value);
  else if (Array.isArray(value)) value.forEach((item) => exposedStrings(item, found));
  else if (typeof value === "object" && value !== null) {
    const record = value as Props;
    if (record[signatureKey] === secretSignature) return found;
    Object.values(record).forEach((item) => exposedStrings(item, found));
  }
  return found;
}

const isSecret = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as Props)[signatureKey] === secretSignature;

// Each test starts the plugin's process (Node and the package): seconds on a loaded machine.
jest.setTimeout(30_000);

describe("the native plugin (pulumi-resource-gpucloud)", () => {
  const h = useEmulator({ per: "test" });
  let plugin: Plugin;
  let stackToken: string;

  beforeEach(async () => {
    plugin = await startPlugin();
    // As the engine does: CheckConfig, then Configure with the checked inputs.
    const check = new provproto.CheckRequest();
    check.setUrn("urn:pulumi:dev::native-test::pulumi:providers:gpucloud::default");
    check.setOlds(struct({}));
    check.setNews(struct({ apiKey: secretOf(h.emulator.apiKey), baseUrl: h.emulator.url }));
    const checked = await plugin.call<provproto.CheckResponse>("checkConfig", check);
    const config = plain(checked.getInputs());
    expect(isSecret(config["apiKey"])).toBe(true);
    stackToken = String(config["stackToken"]);
    expect(stackToken).toMatch(/^[\w-]{22}$/);
    const configure = new provproto.ConfigureRequest();
    configure.setArgs(struct(config));
    configure.setAcceptsecrets(true);
    const configured = await plugin.call<provproto.ConfigureResponse>("configure", configure);
    expect(configured.getAcceptsecrets()).toBe(true);
  });

  afterEach(async () => {
    await plugin.stop();
    // Only the port on stdout; neither the key nor any secret on either stream.
    expect(plugin.stdout()).toMatch(/^\d+\n$/);
    expect(plugin.stderr()).not.toContain(h.emulator.apiKey);
  });

  async function check(type: string, name: string, news: Props, olds: Props = {}) {
    const request = new provproto.CheckRequest();
    request.setUrn(urnOf(type, name));
    request.setType(`gpucloud:index:${type}`);
    request.setName(name);
    request.setOlds(struct(olds));
    request.setNews(struct(news));
    const response = await plugin.call<provproto.CheckResponse>("check", request);
    return {
      inputs: plain(response.getInputs()),
      failures: response.getFailuresList().map((failure) => failure.getReason()),
    };
  }

  async function create(type: string, name: string, inputs: Props) {
    const request = new provproto.CreateRequest();
    request.setUrn(urnOf(type, name));
    request.setType(`gpucloud:index:${type}`);
    request.setProperties(struct(inputs));
    const response = await plugin.call<provproto.CreateResponse>("create", request);
    return { id: response.getId(), outs: plain(response.getProperties()) };
  }

  async function read(type: string, name: string, id: string, props: Props, inputs: Props) {
    const request = new provproto.ReadRequest();
    request.setUrn(urnOf(type, name));
    request.setType(`gpucloud:index:${type}`);
    request.setId(id);
    request.setProperties(struct(props));
    request.setInputs(struct(inputs));
    const response = await plugin.call<provproto.ReadResponse>("read", request);
    return {
      id: response.getId(),
      outs: plain(response.getProperties()),
      inputs: response.hasInputs() ? plain(response.getInputs()) : undefined,
    };
  }

  async function diff(type: string, name: string, id: string, olds: Props, news: Props) {
    const request = new provproto.DiffRequest();
    request.setUrn(urnOf(type, name));
    request.setType(`gpucloud:index:${type}`);
    request.setId(id);
    request.setOlds(struct(olds));
    request.setOldInputs(struct(olds));
    request.setNews(struct(news));
    return plugin.call<provproto.DiffResponse>("diff", request);
  }

  async function update(type: string, name: string, id: string, olds: Props, news: Props) {
    const request = new provproto.UpdateRequest();
    request.setUrn(urnOf(type, name));
    request.setType(`gpucloud:index:${type}`);
    request.setId(id);
    request.setOlds(struct(olds));
    request.setOldInputs(struct(olds));
    request.setNews(struct(news));
    const response = await plugin.call<provproto.UpdateResponse>("update", request);
    return plain(response.getProperties());
  }

  async function remove(type: string, name: string, id: string, props: Props) {
    const request = new provproto.DeleteRequest();
    request.setUrn(urnOf(type, name));
    request.setType(`gpucloud:index:${type}`);
    request.setId(id);
    request.setProperties(struct(props));
    await plugin.call<emptyproto.Empty>("delete", request);
  }

  it("serves its version and a schema with every resource", async () => {
    const info = await plugin.call<plugproto.PluginInfo>("getPluginInfo", new emptyproto.Empty());
    expect(info.getVersion()).toMatch(/^\d+\.\d+\.\d+/);
    const request = new provproto.GetSchemaRequest();
    const schema = JSON.parse(
      (await plugin.call<provproto.GetSchemaResponse>("getSchema", request)).getSchema(),
    ) as { name: string; resources: Props };
    expect(schema.name).toBe("gpucloud");
    expect(Object.keys(schema.resources)).toEqual(
      expect.arrayContaining(["gpucloud:index:Secret", "gpucloud:index:Volume"]),
    );
  });

  it("drives a Secret through check, create, read, diff, update and delete, never unwrapped", async () => {
    const value = "n4tive-s3cret.value";
    const checked = await check("Secret", "token", { key: "native_token", value: secretOf(value) });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs["key"]).toBe("NATIVE_TOKEN");
    expect(isSecret(checked.inputs["value"])).toBe(true);

    const created = await create("Secret", "token", checked.inputs);
    expect(created.id).toBe("NATIVE_TOKEN");
    expect(isSecret(created.outs["value"])).toBe(true);
    expect(await h.emulator.secrets()).toEqual({ NATIVE_TOKEN: value });

    const found = await read("Secret", "token", created.id, created.outs, checked.inputs);
    expect(found.id).toBe("NATIVE_TOKEN");
    expect(isSecret(found.outs["value"])).toBe(true);

    // A new value given as plain text is still secret on the way out: the schema says so.
    const next = "second.value";
    const changed = await diff("Secret", "token", created.id, created.outs, {
      key: "NATIVE_TOKEN",
      value: next,
    });
    expect(changed.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(changed.getReplacesList()).toEqual([]);
    expect(changed.getDiffsList()).toEqual(["value"]);
    const renamed = await diff("Secret", "token", created.id, created.outs, {
      key: "OTHER",
      value: secretOf(value),
    });
    expect(renamed.getReplacesList()).toEqual(["key"]);

    const updated = await update("Secret", "token", created.id, created.outs, {
      key: "NATIVE_TOKEN",
      value: next,
    });
    expect(isSecret(updated["value"])).toBe(true);
    expect(await h.emulator.secrets()).toEqual({ NATIVE_TOKEN: next });

    await remove("Secret", "token", created.id, updated);
    expect(await h.emulator.secrets()).toEqual({});
    const gone = await read("Secret", "token", created.id, updated, checked.inputs);
    expect(gone.id).toBe("");

    const responses = [checked.inputs, created.outs, found.outs, found.inputs, updated];
    for (const exposed of responses.map((response) => exposedStrings(response))) {
      expect(exposed).not.toContain(value);
      expect(exposed).not.toContain(next);
    }
    expect(plugin.stderr()).not.toContain(value);
    expect(plugin.stdout()).not.toContain(value);
  });

  it("reports a bad input as a check failure that never quotes the secret", async () => {
    const checked = await check("Secret", "bad", { key: "1bad", value: secretOf("has space") });
    expect(checked.failures.join("\n")).toMatch(/key/);
    expect(checked.failures.join("\n")).not.toContain("has space");
  });

  it("drives a Volume through check, create, read, update and delete", async () => {
    const [ask] = await h.client.volumes.searchOffers({});
    if (ask === undefined) throw new Error("the emulator lists no volume ask");
    const checked = await check("Volume", "data", { askId: ask.id });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toEqual({ askId: ask.id, sizeGb: 15 });

    const created = await create("Volume", "data", checked.inputs);
    expect(created.id).toMatch(/^V\.\d+$/);
    expect(created.outs).toMatchObject({ askId: ask.id, sizeGb: 15, volumeName: created.id });
    expect((await h.emulator.state()).volumes.map((volume) => `V.${volume.id}`)).toEqual([
      created.id,
    ]);

    const found = await read("Volume", "data", created.id, created.outs, checked.inputs);
    expect(found.id).toBe(created.id);
    expect(found.outs).toMatchObject({ volumeId: created.outs["volumeId"] });

    const resized = await diff("Volume", "data", created.id, created.outs, {
      askId: ask.id,
      sizeGb: 20,
    });
    expect(resized.getReplacesList()).toEqual(["sizeGb"]);

    const updated = await update("Volume", "data", created.id, created.outs, checked.inputs);
    expect(updated).toMatchObject({ volumeId: created.outs["volumeId"] });

    await remove("Volume", "data", created.id, updated);
    expect((await h.emulator.state()).volumes).toEqual([]);
  });

  it("gives an Instance its owner from the URN and the provider's stack token", async () => {
    const checked = await check("Instance", "gpu", { askId: 1, image: "pytorch", diskGb: 10 });
    expect(checked.inputs).toMatchObject({
      owner: "native-test/dev/gpu",
      stackToken,
    });
  });

  it("serves the stack's sweeper with the provider's token: a refresh names its leftovers and writes nothing, its delete destroys them and nothing else", async () => {
    const type = "InstanceSweeper";
    const name = "gpucloud-instance-sweeper";
    const checked = await check(type, name, {});
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toEqual({ ownerPrefix: "native-test/dev/", stackToken });
    const created = await create(type, name, checked.inputs);
    expect(created).toEqual({ id: "native-test/dev/", outs: checked.inputs });

    const rent = (token: string, label: string) =>
      h.client.instances.create(31001, {
        image: "img",
        disk: 10,
        label,
        env: { PULUMI_GPUCLOUD_OWNER: "native-test/dev/gpu", PULUMI_GPUCLOUD_STACK: token },
      });
    const leftover = await rent(stackToken, `pulumi-gpucloud:creating:${stackToken}`);
    const untouched = [
      // A namesake stack's leftover (another backend: another token), a handed-over instance
      // of this stack (retained, or removed with `pulumi state delete`), and a label alone.
      await rent("6fa459ea-ee8a-4ca4-894e-db77e160355e", "pulumi-gpucloud:creating:6fa459ea"),
      await rent(stackToken, "trainer"),
      await rent("another", `pulumi-gpucloud:creating:${stackToken}`),
    ];

    // A refresh reads as its preview does (the engine's Read says not which): it only names.
    await h.emulator.clearRequests();
    const refreshed = await read(type, name, created.id, created.outs, checked.inputs);
    expect(refreshed.outs).toEqual(created.outs);
    expect((await h.emulator.requests()).map((request) => request.method)).toEqual(["GET"]);
    expect((await diff(type, name, created.id, created.outs, checked.inputs)).getChanges()).toBe(
      provproto.DiffResponse.DiffChanges.DIFF_NONE,
    );

    await remove(type, name, created.id, created.outs);
    const ids = (await h.client.instances.list()).map((instance) => instance.id);
    expect(ids).toEqual(untouched);
    expect(ids).not.toContain(leftover);
  });

  it("invokes the package's functions with the configured key", async () => {
    const request = new provproto.InvokeRequest();
    request.setTok("gpucloud:index:getCurrentUser");
    request.setArgs(struct({}));
    const user = plain(
      (await plugin.call<provproto.InvokeResponse>("invoke", request)).getReturn(),
    );
    expect(typeof user["id"]).toBe("number");
    expect(typeof user["email"]).toBe("string");
    expect(JSON.stringify(user)).not.toContain(h.emulator.apiKey);

    const offers = new provproto.InvokeRequest();
    offers.setTok("gpucloud:index:getVolumeOffers");
    offers.setArgs(struct({ query: {} }));
    const found = plain(
      (await plugin.call<provproto.InvokeResponse>("invoke", offers)).getReturn(),
    );
    expect(Array.isArray(found["offers"])).toBe(true);
  });
});
