import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import { secretOf } from "../../provider/native/secrets";

/**
 * The `pulumi-resource-gpucloud` plugin as the engine runs it: the built launcher (dist/, which
 * `npm test` builds first) started as a child process, driven over gRPC. With
 * GPUCLOUD_PLUGIN_EXECUTABLE, a standalone executable instead (a release's, to prove its runtime
 * behaves as Node.js does: RELEASING.md).
 */
const builtLauncher = path.resolve(__dirname, "../../dist/provider/native/main.js");
const standalone = process.env["GPUCLOUD_PLUGIN_EXECUTABLE"];

export type Props = Record<string, unknown>;

export const urnOf = (type: string, name: string): string =>
  `urn:pulumi:dev::native-test::gpucloud:index:${type}::${name}`;

export const struct = (props: Props): structproto.Struct =>
  structproto.Struct.fromJavaScript(props as Record<string, structproto.JavaScriptValue>);
export const plain = (value: structproto.Struct | undefined): Props => value?.toJavaScript() ?? {};

type UnaryMethod<Res> = (
  request: object,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => void;

export interface Plugin {
  readonly stdout: () => string;
  readonly stderr: () => string;
  call<Res>(method: string, request: object): Promise<Res>;
  stop(): Promise<void>;
}

/**
 * The plugin started from `launcher`: the built one unless said (another tree's, built aside), or
 * the standalone executable GPUCLOUD_PLUGIN_EXECUTABLE names.
 */
export async function startPlugin(launcher = builtLauncher): Promise<Plugin> {
  const [program, args]: readonly [string, string[]] =
    standalone !== undefined && standalone !== "" && launcher === builtLauncher
      ? [standalone, []]
      : [process.execPath, [launcher]];
  if (!existsSync(args[0] ?? program)) {
    throw new Error(`${args[0] ?? program} is missing: build first (tsc -p tsconfig.build.json)`);
  }
  const env = { ...process.env };
  delete env["GPUCLOUD_API_KEY"];
  delete env["GPUCLOUD_BASE_URL"];
  const child: ChildProcess = spawn(program, args, {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => {
      reject(new Error(`plugin exited (${code}): ${stderr}`));
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^(\d+)\n/.exec(stdout);
      if (line?.[1]) resolve(Number(line[1]));
    });
  });
  const client = new provrpc.ResourceProviderClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  );
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    call: <Res>(method: string, request: object) =>
      new Promise<Res>((resolve, reject) => {
        const fn = (client as unknown as Record<string, UnaryMethod<Res> | undefined>)[method];
        if (fn === undefined) throw new Error(`no method ${method}`);
        fn.call(client, request, (error: grpc.ServiceError | null, response: Res) => {
          if (error) reject(error);
          else resolve(response);
        });
      }),
    stop: async () => {
      client.close();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/** As the engine does: CheckConfig, then Configure with the checked inputs. */
export async function configurePlugin(
  plugin: Plugin,
  emulator: { apiKey: string; url: string },
): Promise<Props> {
  const check = new provproto.CheckRequest();
  check.setUrn("urn:pulumi:dev::native-test::pulumi:providers:gpucloud::default");
  check.setOlds(struct({}));
  check.setNews(struct({ apiKey: secretOf(emulator.apiKey), baseUrl: emulator.url }));
  const checked = await plugin.call<provproto.CheckResponse>("checkConfig", check);
  const config = plain(checked.getInputs());
  const configure = new provproto.ConfigureRequest();
  configure.setArgs(struct(config));
  configure.setAcceptsecrets(true);
  await plugin.call<provproto.ConfigureResponse>("configure", configure);
  return config;
}

/**
 * `pulumi import` of `id` as the engine's import step sends it: Read with no properties, then
 * Check (olds = news = the inputs read) and Diff against the outputs read.
 */
export async function importThrough(plugin: Plugin, type: string, name: string, id: string) {
  const read = new provproto.ReadRequest();
  read.setUrn(urnOf(type, name));
  read.setType(`gpucloud:index:${type}`);
  read.setId(id);
  const found = await plugin.call<provproto.ReadResponse>("read", read);
  const outs = plain(found.getProperties());
  const inputs = plain(found.getInputs());
  const check = new provproto.CheckRequest();
  check.setUrn(urnOf(type, name));
  check.setType(`gpucloud:index:${type}`);
  check.setName(name);
  check.setOlds(struct(inputs));
  check.setNews(struct(inputs));
  const checked = await plugin.call<provproto.CheckResponse>("check", check);
  const diff = new provproto.DiffRequest();
  diff.setUrn(urnOf(type, name));
  diff.setType(`gpucloud:index:${type}`);
  diff.setId(found.getId());
  diff.setOlds(struct(outs));
  diff.setOldInputs(struct(inputs));
  diff.setNews(checked.getInputs() ?? struct({}));
  const diffed = await plugin.call<provproto.DiffResponse>("diff", diff);
  return {
    id: found.getId(),
    outs,
    inputs,
    checked: plain(checked.getInputs()),
    failures: checked.getFailuresList().map((f) => `${f.getProperty()}: ${f.getReason()}`),
    changes: diffed.getChanges(),
  };
}
